//! Storage layout, byte for byte the one cw-storage-plus gives the official
//! contract (Item "init_stage"; Maps "stages", "scores", "allow_list" with a
//! big-endian u16 length-prefixed namespace; JSON values), so raw-state
//! readers work on both and a deployment of the official code can migrate
//! to this one.

use crate::json::{self, as_u64, field, u64_str, Value, Writer};
use std::string::String;
use std::vec::Vec;

pub const INIT_STAGE_KEY: &[u8] = b"init_stage";
const STAGES: &[u8] = b"stages";
const SCORES: &[u8] = b"scores";
const ALLOW_LIST: &[u8] = b"allow_list";

fn namespace(ns: &[u8], extra: usize) -> Vec<u8> {
    let mut k = Vec::with_capacity(2 + ns.len() + extra);
    k.extend_from_slice(&(ns.len() as u16).to_be_bytes());
    k.extend_from_slice(ns);
    k
}

pub fn stage_key(stage: u64) -> Vec<u8> {
    let mut k = namespace(STAGES, 8);
    k.extend_from_slice(&stage.to_be_bytes());
    k
}

/// Scores of one stage share the prefix namespace || stage, so a range scan
/// over that prefix lists a stage's scores ordered by address bytes.
pub fn score_prefix(stage: u64) -> Vec<u8> {
    let mut k = namespace(SCORES, 8 + 64);
    k.extend_from_slice(&stage.to_be_bytes());
    k
}

pub fn score_key(stage: u64, addr: &str) -> Vec<u8> {
    let mut k = score_prefix(stage);
    k.extend_from_slice(addr.as_bytes());
    k
}

/// The first key after every score of `stage`.
pub fn score_range_end(stage: u64) -> Vec<u8> {
    match stage.checked_add(1) {
        Some(next) => score_prefix(next),
        // Past the last stage: bump the namespace's last byte ("scores" ->
        // "scoret"), which sorts after every key in the namespace.
        None => {
            let mut k = namespace(SCORES, 0);
            if let Some(last) = k.last_mut() {
                *last += 1;
            }
            k
        }
    }
}

pub fn allow_key(addr: &str) -> Vec<u8> {
    let mut k = namespace(ALLOW_LIST, addr.len());
    k.extend_from_slice(addr.as_bytes());
    k
}

/// The range holding every allow-list entry.
pub fn allow_range() -> (Vec<u8>, Vec<u8>) {
    let start = namespace(ALLOW_LIST, 0);
    let mut end = start.clone();
    if let Some(last) = end.last_mut() {
        *last += 1;
    }
    (start, end)
}

/// The address part of a score key with the given prefix.
pub fn score_addr(key: &[u8], prefix_len: usize) -> Option<String> {
    let tail = key.get(prefix_len..)?;
    String::from_utf8(tail.to_vec()).ok()
}

/// The allow-list value: cosmwasm Empty, serialized as an empty object.
pub const EMPTY_VALUE: &[u8] = b"{}";

#[cfg_attr(test, derive(Debug))]
pub struct StageInfo {
    pub stage: u64,
    pub total_score: u64,
    pub is_finalized: bool,
}

impl StageInfo {
    /// JSON with the official field order.
    pub fn write(&self, w: &mut Writer) {
        w.raw("{\"stage\":");
        w.u64(self.stage);
        w.raw(",\"total_score\":");
        w.u64(self.total_score);
        w.raw(",\"is_finalized\":");
        w.bool(self.is_finalized);
        w.raw("}");
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(64);
        self.write(&mut w);
        w.into_bytes()
    }

    pub fn decode(data: &[u8]) -> Result<StageInfo, String> {
        let v = json::parse(data).map_err(corrupt)?;
        let stage = as_u64(need(&v, "stage")?, "stage").map_err(corrupt)?;
        let total_score = as_u64(need(&v, "total_score")?, "total_score").map_err(corrupt)?;
        let is_finalized = match need(&v, "is_finalized")? {
            Value::Bool(b) => *b,
            _ => return Err(corrupt(String::from("is_finalized is not a boolean"))),
        };
        Ok(StageInfo {
            stage,
            total_score,
            is_finalized,
        })
    }
}

pub fn encode_score(score: u64) -> Vec<u8> {
    u64_str(score).into_bytes()
}

pub fn decode_score(data: &[u8]) -> Result<u64, String> {
    let v = json::parse(data).map_err(corrupt)?;
    as_u64(&v, "score").map_err(corrupt)
}

fn need<'v, 'a>(v: &'v Value<'a>, name: &str) -> Result<&'v Value<'a>, String> {
    field(v, name).ok_or_else(|| {
        let mut m = String::from("missing field ");
        m.push_str(name);
        corrupt(m)
    })
}

fn corrupt(e: String) -> String {
    let mut m = String::from("stored state is corrupt: ");
    m.push_str(&e);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_cw_storage_plus_layout() {
        assert_eq!(stage_key(5), b"\x00\x06stages\x00\x00\x00\x00\x00\x00\x00\x05".to_vec());
        assert_eq!(score_key(1, "init1a"), b"\x00\x06scores\x00\x00\x00\x00\x00\x00\x00\x01init1a".to_vec());
        assert_eq!(allow_key("init1a"), b"\x00\x0aallow_listinit1a".to_vec());
        assert_eq!(score_range_end(1), score_prefix(2));
        assert_eq!(score_range_end(u64::MAX), b"\x00\x06scoret".to_vec());
        assert!(score_range_end(u64::MAX) > score_key(u64::MAX, "zzzz"));
        let (s, e) = allow_range();
        assert!(s < allow_key("a") && allow_key("\u{7f}") < e);
    }

    #[test]
    fn stage_info_round_trips() {
        let s = StageInfo { stage: 3, total_score: 10, is_finalized: true };
        let bytes = s.encode();
        assert_eq!(bytes, br#"{"stage":3,"total_score":10,"is_finalized":true}"#.to_vec());
        let d = StageInfo::decode(&bytes).unwrap();
        assert_eq!((d.stage, d.total_score, d.is_finalized), (3, 10, true));
        assert!(StageInfo::decode(br#"{"stage":3}"#).unwrap_err().contains("missing field total_score"));
        assert_eq!(decode_score(&encode_score(77)).unwrap(), 77);
    }
}
