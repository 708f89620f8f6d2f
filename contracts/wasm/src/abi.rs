//! The CosmWasm host ABI (interface_version_8): the Region memory descriptor,
//! the `env` imports this contract uses, and safe wrappers around them.
//!
//! Ownership follows the VM's convention: a Region the host hands us (entry
//! point arguments, db_read/db_next/addr_validate results) was allocated
//! through our `allocate` export, so we take it over and free it; a Region we
//! pass to an import only borrows our memory for the duration of the call.

use std::boxed::Box;
use std::vec::Vec;

/// Mirrors cosmwasm-std's Region: three little-endian u32 in linear memory.
#[repr(C)]
pub struct Region {
    offset: u32,
    capacity: u32,
    length: u32,
}

#[link(wasm_import_module = "env")]
extern "C" {
    fn db_read(key: u32) -> u32;
    fn db_write(key: u32, value: u32);
    fn db_remove(key: u32);
    fn db_scan(start: u32, end: u32, order: i32) -> u32;
    fn db_next(iterator_id: u32) -> u32;
    fn addr_validate(source: u32) -> u32;
}

/// The VM refuses to read a human address region longer than this
/// (MAX_LENGTH_HUMAN_ADDRESS); checking first keeps that a contract error.
pub const MAX_ADDRESS_LEN: usize = 256;

const ORDER_ASCENDING: i32 = 1;

/// Backs the `allocate` export: a fresh buffer of `size` bytes, described by a
/// heap Region whose address is returned to the host.
pub fn allocate(size: usize) -> u32 {
    release_vec(Vec::with_capacity(size))
}

/// Backs the `deallocate` export.
pub fn deallocate(ptr: u32) {
    drop(take_vec(ptr));
}

/// Hands a vector to the host: the returned pointer names a heap Region.
pub fn release_vec(mut data: Vec<u8>) -> u32 {
    let region = Box::new(Region {
        offset: data.as_mut_ptr() as u32,
        capacity: data.capacity() as u32,
        length: data.len() as u32,
    });
    std::mem::forget(data);
    Box::into_raw(region) as u32
}

/// Takes back a Region the host filled (or one we released earlier) and
/// returns its bytes; both the descriptor and the buffer become ours again.
/// A null pointer yields an empty vector.
pub fn take_vec(ptr: u32) -> Vec<u8> {
    if ptr == 0 {
        return Vec::new();
    }
    // SAFETY: the host only passes Regions created by `allocate`/`release_vec`
    // (the VM contract); the descriptor and buffer are owned heap allocations.
    unsafe {
        let region = Box::from_raw(ptr as *mut Region);
        if region.capacity == 0 {
            return Vec::new();
        }
        let len = region.length.min(region.capacity) as usize;
        Vec::from_raw_parts(region.offset as *mut u8, len, region.capacity as usize)
    }
}

/// A Region borrowing `data` for the duration of one import call.
fn borrow(data: &[u8]) -> Region {
    Region {
        offset: data.as_ptr() as u32,
        capacity: data.len() as u32,
        length: data.len() as u32,
    }
}

fn region_ptr(region: &Region) -> u32 {
    region as *const Region as u32
}

/// Reads a key from contract storage.
pub fn storage_get(key: &[u8]) -> Option<Vec<u8>> {
    let k = borrow(key);
    // SAFETY: the Region points at live memory for the whole call.
    let ptr = unsafe { db_read(region_ptr(&k)) };
    if ptr == 0 {
        None
    } else {
        Some(take_vec(ptr))
    }
}

/// Writes a key to contract storage. Values are never empty here (JSON).
pub fn storage_set(key: &[u8], value: &[u8]) {
    let (k, v) = (borrow(key), borrow(value));
    // SAFETY: both Regions point at live memory for the whole call.
    unsafe { db_write(region_ptr(&k), region_ptr(&v)) }
}

/// Deletes a key from contract storage.
pub fn storage_remove(key: &[u8]) {
    let k = borrow(key);
    // SAFETY: the Region points at live memory for the whole call.
    unsafe { db_remove(region_ptr(&k)) }
}

/// Ascending iteration over keys in [start, end).
pub struct Range {
    id: u32,
}

impl Range {
    pub fn new(start: &[u8], end: &[u8]) -> Range {
        let (s, e) = (borrow(start), borrow(end));
        // SAFETY: both Regions point at live memory for the whole call.
        let id = unsafe { db_scan(region_ptr(&s), region_ptr(&e), ORDER_ASCENDING) };
        Range { id }
    }

    /// The next (key, value) pair, or None once the range is exhausted.
    pub fn next_record(&mut self) -> Option<(Vec<u8>, Vec<u8>)> {
        // SAFETY: the id came from db_scan in this same call.
        let data = take_vec(unsafe { db_next(self.id) });
        // The VM encodes key || len(key) || value || len(value), lengths as
        // big-endian u32; an empty key marks the end.
        let (rest, value) = split_tail(&data)?;
        let (_, key) = split_tail(rest)?;
        if key.is_empty() {
            return None;
        }
        Some((key.to_vec(), value.to_vec()))
    }
}

/// Splits off the last length-suffixed section.
fn split_tail(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let len_at = data.len().checked_sub(4)?;
    let mut len_bytes = [0u8; 4];
    len_bytes.copy_from_slice(data.get(len_at..)?);
    let len = u32::from_be_bytes(len_bytes) as usize;
    let start = len_at.checked_sub(len)?;
    Some((data.get(..start)?, data.get(start..len_at)?))
}

/// Asks the chain whether `addr` is a valid, normalized account address.
/// Err carries the chain's reason.
pub fn validate_address(addr: &str) -> Result<(), String> {
    if addr.is_empty() {
        return Err(String::from("address is empty"));
    }
    if addr.len() > MAX_ADDRESS_LEN {
        return Err(String::from("address is longer than 256 bytes"));
    }
    let a = borrow(addr.as_bytes());
    // SAFETY: the Region points at live memory for the whole call.
    let ptr = unsafe { addr_validate(region_ptr(&a)) };
    if ptr == 0 {
        return Ok(());
    }
    let reason = take_vec(ptr);
    Err(String::from_utf8_lossy(&reason).into_owned())
}
