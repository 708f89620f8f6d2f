module std::signer {
    native public fun borrow_address(s: &signer): &address;

    public fun address_of(s: &signer): address {
        *borrow_address(s)
    }
}
