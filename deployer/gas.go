package deployer

// GasModel is the cost of one score update with n new addresses, fitted from three
// measurements on the live contract: with 1, 2 and Span new addresses. Beyond the first few
// addresses the cost is Fixed + PerEntry×n (the chord through 1 and Span, which bounds the
// cost from above past Span). The first addresses of an update can cost more each than the
// later ones (seen on the EVM: ~50k gas for the 2nd and 3rd new address, ~30k from the 4th):
// below Span the model also takes the first step's slope, First, capped at the cost of Span.
// Overwrites cost less than new addresses, so the model is an upper bound; Headroom
// (percent) covers the measurement's own error.
type GasModel struct {
	Fixed, PerEntry uint64
	First, Many     uint64 // the gas of the second address alone; the gas of Span addresses
	Span            int
	Headroom        uint64
}

// FitGas fits a model to the gas of an update with 1, 2 and n (> 2) new addresses.
func FitGas(one, two, many uint64, n int, headroom uint64) GasModel {
	per := (max(many, one) - one + uint64(n) - 2) / uint64(n-1)
	return GasModel{Fixed: one - min(one, per), PerEntry: per, First: max(two, one) - one, Many: max(many, one), Span: n, Headroom: headroom}
}

// Raw is the modelled gas for n new addresses.
func (m GasModel) Raw(n int) uint64 {
	chord := m.Fixed + m.PerEntry*uint64(n)
	if n >= m.Span || m.First <= m.PerEntry || n < 1 {
		return chord
	}
	early := min(m.Fixed+m.PerEntry+m.First*uint64(n-1), m.Many)
	return max(chord, early)
}

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
	n := int((budget - m.Fixed) / m.PerEntry)
	for n > 0 && m.Raw(n) > budget { // below Span the early slope may bind
		n--
	}
	return n
}
