package whitelist

import (
	"fmt"
	"math/big"
	"strings"
)

// decimals is BigDecimal's fixed precision: 18 fractional digits.
const decimals = 18

var (
	scale   = new(big.Int).Exp(big.NewInt(10), big.NewInt(decimals), nil)
	maxRate = scale // 1.0
)

// Rate is a commission rate in [0, 1], exact to 18 decimal places (a Move BigDecimal).
type Rate struct{ scaled *big.Int }

// ParseRate reads a decimal such as "0.05" or "1". It refuses fractions finer than 10^-18,
// signs, exponents and values above 1.
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Rate{}, fmt.Errorf("empty: want a decimal in [0, 1] such as 0.05")
	}
	whole, frac, hasDot := strings.Cut(t, ".")
	if (whole == "" && frac == "") || (hasDot && frac == "") || !digits(whole) || !digits(frac) {
		return Rate{}, fmt.Errorf("%q is not a decimal such as 0.05", s)
	}
	if len(frac) > decimals {
		return Rate{}, fmt.Errorf("%q has more than %d decimal places", s, decimals)
	}
	if whole == "" {
		whole = "0"
	}
	v, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if v.Cmp(maxRate) > 0 {
		return Rate{}, fmt.Errorf("%s is above 1", t)
	}
	return Rate{scaled: v}, nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Cmp compares two rates.
func (r Rate) Cmp(o Rate) int { return r.value().Cmp(o.value()) }

func (r Rate) value() *big.Int {
	if r.scaled == nil {
		return new(big.Int)
	}
	return r.scaled
}

// String is the shortest decimal form ("0.05", "1", "0").
func (r Rate) String() string {
	q, m := new(big.Int).QuoRem(r.value(), scale, new(big.Int))
	if m.Sign() == 0 {
		return q.String()
	}
	f := fmt.Sprintf("%0*s", decimals, m.String())
	return q.String() + "." + strings.TrimRight(f, "0")
}

// Percent is the rate as a percentage for people ("5%", "12.5%").
func (r Rate) Percent() string {
	p := Rate{scaled: new(big.Int).Mul(r.value(), big.NewInt(100))}
	return p.String() + "%"
}

// BCS is the rate as a BigDecimal argument.
func (r Rate) BCS() []byte { return bcsBigDecimal(r.value()) }
