// Package pbwalk reads a protobuf message one level at a time, without generated types: for
// the few fields a decoder needs out of a large message (a tx result, a signed tx).
package pbwalk

import "google.golang.org/protobuf/encoding/protowire"

// EachField walks one level of a protobuf message: f gets each field's number and wire type,
// and a length-delimited field's bytes (v) or a varint field's value (n); fields of other
// wire types are skipped over and reach f with neither. f's first error stops the walk.
func EachField(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error) error {
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return protowire.ParseError(l)
		}
		b = b[l:]
		var v []byte
		var n uint64
		switch typ {
		case protowire.VarintType:
			n, l = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			v, l = protowire.ConsumeBytes(b)
		default:
			l = protowire.ConsumeFieldValue(num, typ, b)
		}
		if l < 0 {
			return protowire.ParseError(l)
		}
		b = b[l:]
		if err := f(num, typ, v, n); err != nil {
			return err
		}
	}
	return nil
}
