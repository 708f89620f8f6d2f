/// An optional value, stored as a vector of zero or one element (the layout MoveStdlib uses,
/// so values cross the VM boundary the same way).
module std::option {
    use std::vector;

    const EOPTION_IS_SET: u64 = 0x40000;
    const EOPTION_NOT_SET: u64 = 0x40001;
    const EOPTION_VEC_TOO_LONG: u64 = 0x40002;

    struct Option<Element> has copy, drop, store {
        vec: vector<Element>
    }

    /// The VM builds Option arguments of entry and view functions with this.
    public fun from_vec<Element>(vec: vector<Element>): Option<Element> {
        assert!(vector::length(&vec) <= 1, EOPTION_VEC_TOO_LONG);
        Option { vec }
    }

    public fun none<Element>(): Option<Element> {
        Option { vec: vector::empty() }
    }

    public fun some<Element>(e: Element): Option<Element> {
        let vec = vector::empty();
        vector::push_back(&mut vec, e);
        Option { vec }
    }

    public fun is_none<Element>(t: &Option<Element>): bool {
        vector::is_empty(&t.vec)
    }

    public fun is_some<Element>(t: &Option<Element>): bool {
        !vector::is_empty(&t.vec)
    }

    public fun borrow<Element>(t: &Option<Element>): &Element {
        assert!(is_some(t), EOPTION_NOT_SET);
        vector::borrow(&t.vec, 0)
    }

    public fun extract<Element>(t: &mut Option<Element>): Element {
        assert!(is_some(t), EOPTION_NOT_SET);
        vector::pop_back(&mut t.vec)
    }
}
