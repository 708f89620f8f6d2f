module minitia_std::event {
    /// Emits msg as a module event of its type (the struct carries #[event]).
    public fun emit<T: drop>(msg: T) {
        emit_event<T>(&msg)
    }

    native fun emit_event<T: drop>(msg: &T);
}
