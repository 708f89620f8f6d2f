package deployer

// GasModel is the cost of one score update with n new addresses: Fixed + PerEntry×n, fitted
// from two measurements on the live contract. Overwrites cost less than new addresses, so the
// model is an upper bound; Headroom (percent) covers the measurement's own error.
type GasModel struct {
	Fixed, PerEntry uint64
	Headroom        uint64
}

// FitGas fits a model to the gas of an update with 1 and with n (> 1) new addresses.
func FitGas(one, many uint64, n int, headroom uint64) GasModel {
	per := (max(many, one) - one + uint64(n) - 2) / uint64(n-1)
	return GasModel{Fixed: one - min(one, per), PerEntry: per, Headroom: headroom}
}

// Raw is the modelled gas for n new addresses.
func (m GasModel) Raw(n int) uint64 { return m.Fixed + m.PerEntry*uint64(n) }

// Limit is the gas limit to sign for n entries: Raw with headroom, at most limitCap.
func (m GasModel) Limit(n int, limitCap uint64) uint64 {
	return min(m.Raw(n)*(100+m.Headroom)/100, limitCap)
}

// MaxEntries is the largest n whose limit (with headroom) fits within limitCap.
func (m GasModel) MaxEntries(limitCap uint64) int {
	budget := limitCap / (100 + m.Headroom) * 100
	if m.PerEntry == 0 || budget <= m.Fixed {
		return 0
	}
	return int((budget - m.Fixed) / m.PerEntry)
}
