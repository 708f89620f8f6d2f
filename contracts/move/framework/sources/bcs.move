module std::bcs {
    /// The BCS bytes of a value.
    native public fun to_bytes<MoveValue>(v: &MoveValue): vector<u8>;
}
