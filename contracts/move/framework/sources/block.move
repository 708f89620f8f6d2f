/// The current block, as InitiaStdlib has it: the VM's native reads the block context the
/// chain passes to each call.
module initia_std::block {
    /// The block's height and its time in seconds.
    native public fun get_block_info(): (u64, u64);
}
