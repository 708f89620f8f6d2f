package ledger

import "testing"

func TestDeviceRefusals(t *testing.T) {
	const mnemonic = "test test test test test test test test test test test junk"
	for _, tc := range []struct {
		name string
		set  func(*Device)
		want []bool // the user's answers to five requests
	}{
		{"approves all", func(*Device) {}, []bool{true, true, true, true, true}},
		{"refuses the third", func(d *Device) { d.RejectNth(3) }, []bool{true, true, false, true, true}},
		{"refuses from the third on", func(d *Device) { d.RejectFrom(3) }, []bool{true, true, false, false, false}},
		{"refuses the next", func(d *Device) { d.RejectNext() }, []bool{false, true, true, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDevice(mnemonic)
			if err != nil {
				t.Fatal(err)
			}
			tc.set(d)
			for i, want := range tc.want {
				d.mu.Lock()
				got := d.confirm("sign", []uint32{44}, nil)
				d.mu.Unlock()
				if got != want {
					t.Fatalf("request %d: approved %v, want %v", i+1, got, want)
				}
			}
		})
	}
}
