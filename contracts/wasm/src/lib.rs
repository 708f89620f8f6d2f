//! VIP scoring contract for CosmWasm (wasmvm interface_version_8).
//!
//! Messages, queries, events and storage match initia-labs/vip-score-wasm; the
//! ABI glue is written here instead of pulling in cosmwasm-std, so the crate
//! builds offline with Debian's rustc and has no dependencies. Every entry
//! point returns `{"ok":...}` or `{"error":"..."}`; none is meant to trap.

// Off wasm32 only the pure modules build (for `cargo test`), so their
// helpers look unused there.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

mod json;
mod msg;
mod state;

#[cfg(target_arch = "wasm32")]
mod abi;
#[cfg(target_arch = "wasm32")]
mod contract;

#[cfg(target_arch = "wasm32")]
mod exports {
    use crate::{abi, contract};

    /// Marks the VM interface this contract is built for.
    #[no_mangle]
    extern "C" fn interface_version_8() {}

    /// Declares use of db_scan/db_next (capability "iterator").
    #[no_mangle]
    extern "C" fn requires_iterator() {}

    #[no_mangle]
    extern "C" fn allocate(size: usize) -> u32 {
        abi::allocate(size)
    }

    #[no_mangle]
    extern "C" fn deallocate(ptr: u32) {
        abi::deallocate(ptr)
    }

    #[no_mangle]
    extern "C" fn instantiate(env: u32, info: u32, msg: u32) -> u32 {
        drop(abi::take_vec(env));
        drop(abi::take_vec(info));
        let msg = abi::take_vec(msg);
        respond(contract::instantiate(&msg))
    }

    #[no_mangle]
    extern "C" fn execute(env: u32, info: u32, msg: u32) -> u32 {
        drop(abi::take_vec(env));
        let info = abi::take_vec(info);
        let msg = abi::take_vec(msg);
        respond(contract::execute(&info, &msg))
    }

    #[no_mangle]
    extern "C" fn query(env: u32, msg: u32) -> u32 {
        drop(abi::take_vec(env));
        let msg = abi::take_vec(msg);
        let out = match contract::query(&msg) {
            Ok(data) => contract::query_result_json(&data),
            Err(e) => contract::error_json(&e),
        };
        abi::release_vec(out)
    }

    #[no_mangle]
    extern "C" fn migrate(env: u32, msg: u32) -> u32 {
        drop(abi::take_vec(env));
        let msg = abi::take_vec(msg);
        respond(contract::migrate(&msg))
    }

    fn respond(result: Result<contract::Response, String>) -> u32 {
        let out = match result {
            Ok(res) => res.to_result_json(),
            Err(e) => contract::error_json(&e),
        };
        abi::release_vec(out)
    }
}
