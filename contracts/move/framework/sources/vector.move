/// Vectors: the VM's bytecode instructions behind the same public functions MoveStdlib has.
module std::vector {
    #[bytecode_instruction]
    native public fun empty<Element>(): vector<Element>;

    #[bytecode_instruction]
    native public fun length<Element>(v: &vector<Element>): u64;

    #[bytecode_instruction]
    native public fun borrow<Element>(v: &vector<Element>, i: u64): &Element;

    #[bytecode_instruction]
    native public fun push_back<Element>(v: &mut vector<Element>, e: Element);

    #[bytecode_instruction]
    native public fun borrow_mut<Element>(v: &mut vector<Element>, i: u64): &mut Element;

    #[bytecode_instruction]
    native public fun pop_back<Element>(v: &mut vector<Element>): Element;

    #[bytecode_instruction]
    native public fun destroy_empty<Element>(v: vector<Element>);

    #[bytecode_instruction]
    native public fun swap<Element>(v: &mut vector<Element>, i: u64, j: u64);

    public fun is_empty<Element>(v: &vector<Element>): bool {
        length(v) == 0
    }

    public fun contains<Element>(v: &vector<Element>, e: &Element): bool {
        let i = 0;
        let n = length(v);
        while (i < n) {
            if (borrow(v, i) == e) return true;
            i = i + 1;
        };
        false
    }

    /// Calls f with each index and a reference to its element, in order (inline, as in the
    /// real stdlib: it leaves no code in this module).
    public inline fun enumerate_ref<Element>(v: &vector<Element>, f: |u64, &Element|) {
        let i = 0;
        let n = length(v);
        while (i < n) {
            f(i, borrow(v, i));
            i = i + 1;
        };
    }
}
