//! The VIP scoring rules. Interface and events follow the official
//! vip-score-wasm contract; unlike it, every failure is a returned error
//! (no panic or wrap-around), addresses are validated by the chain,
//! finalizing a finalized stage is refused instead of resetting the next
//! stage, and the allow list can never be emptied.

use crate::abi::{self, Range};
use crate::json::{self, quote, u64_str, Writer};
use crate::msg::{self, Execute, Query};
use crate::state::{self, StageInfo};
use std::string::String;
use std::vec::Vec;

/// A custom event; wasmd publishes it as `wasm-<kind>`.
pub struct Event {
    kind: &'static str,
    attrs: Vec<(&'static str, String)>,
}

#[derive(Default)]
pub struct Response {
    events: Vec<Event>,
}

impl Response {
    fn event(&mut self, kind: &'static str, attrs: Vec<(&'static str, String)>) {
        self.events.push(Event { kind, attrs });
    }

    /// `{"ok":Response}` as cosmwasm-std serializes it.
    pub fn to_result_json(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(64 + self.events.len() * 160);
        w.raw("{\"ok\":{\"messages\":[],\"attributes\":[],\"events\":[");
        for (i, e) in self.events.iter().enumerate() {
            if i > 0 {
                w.raw(",");
            }
            w.raw("{\"type\":");
            w.string(e.kind);
            w.raw(",\"attributes\":[");
            for (j, (k, v)) in e.attrs.iter().enumerate() {
                if j > 0 {
                    w.raw(",");
                }
                w.raw("{\"key\":");
                w.string(k);
                w.raw(",\"value\":");
                w.string(v);
                w.raw("}");
            }
            w.raw("]}");
        }
        w.raw("],\"data\":null}}");
        w.into_bytes()
    }
}

/// `{"ok":"<base64 of data>"}`, the ContractResult<Binary> of a query.
pub fn query_result_json(data: &[u8]) -> Vec<u8> {
    let mut w = Writer::with_capacity(data.len() / 3 * 4 + 16);
    w.raw("{\"ok\":");
    w.base64(data);
    w.raw("}");
    w.into_bytes()
}

/// `{"error":"..."}`.
pub fn error_json(msg: &str) -> Vec<u8> {
    let mut w = Writer::with_capacity(msg.len() + 16);
    w.raw("{\"error\":");
    w.string(msg);
    w.raw("}");
    w.into_bytes()
}

fn text(parts: &[&str]) -> String {
    let mut s = String::new();
    for p in parts {
        s.push_str(p);
    }
    s
}

pub fn instantiate(msg: &[u8]) -> Result<Response, String> {
    let v = json::parse(msg).map_err(|e| text(&["instantiate message: ", &e]))?;
    let m = msg::instantiate(&v)?;
    if m.init_stage == 0 {
        return Err(String::from("Stage can not be zero: init_stage must be at least 1"));
    }
    if m.allow_list.is_empty() {
        return Err(String::from(
            "allow_list is empty: name at least one address, or nobody could ever update scores",
        ));
    }
    for (i, a) in m.allow_list.iter().enumerate() {
        check_address(a, &text(&["allow_list[", &u64_str(i as u64), "]"]))?;
    }
    abi::storage_set(state::INIT_STAGE_KEY, &state::encode_score(m.init_stage));
    let mut res = Response::default();
    create_stage(m.init_stage, &mut res);
    for a in &m.allow_list {
        abi::storage_set(&state::allow_key(a), state::EMPTY_VALUE);
        res.event("add-allow-list", vec![("addr", a.clone())]);
    }
    Ok(res)
}

pub fn execute(info: &[u8], msg: &[u8]) -> Result<Response, String> {
    let v = json::parse(msg).map_err(|e| text(&["execute message: ", &e]))?;
    let m = msg::execute(&v)?;
    check_allowed(&sender(info)?)?;
    let mut res = Response::default();
    match m {
        Execute::UpdateScores { stage, scores } => {
            let mut info = open_stage(stage)?;
            res.events.reserve(scores.len());
            for (i, (addr, amount)) in scores.iter().enumerate() {
                check_address(addr, &text(&["scores[", &u64_str(i as u64), "][0]"]))?;
                set_score(&mut info, addr, *amount, &mut res)?;
            }
            save_stage(&info);
        }
        Execute::UpdateScore { addr, stage, amount } => {
            check_address(&addr, "update_score.addr")?;
            let mut info = open_stage(stage)?;
            set_score(&mut info, &addr, amount, &mut res)?;
            save_stage(&info);
        }
        Execute::IncreaseScore { addr, stage, amount } => {
            check_address(&addr, "increase_score.addr")?;
            let mut info = open_stage(stage)?;
            let old = load_score(stage, &addr)?.unwrap_or(0);
            let new = old.checked_add(amount).ok_or_else(|| {
                text(&["Score overflow: ", &quote(&addr), " at stage ", &u64_str(stage), " would exceed the u64 maximum"])
            })?;
            info.total_score = info.total_score.checked_add(amount).ok_or_else(|| {
                text(&["Score overflow: total score of stage ", &u64_str(stage), " would exceed the u64 maximum"])
            })?;
            store_score(stage, &addr, new);
            save_stage(&info);
            update_event(&mut res, &addr, stage, new, info.total_score);
        }
        Execute::DecreaseScore { addr, stage, amount } => {
            check_address(&addr, "decrease_score.addr")?;
            let mut info = open_stage(stage)?;
            let old = load_score(stage, &addr)?.ok_or_else(|| {
                text(&["User score not found: ", &quote(&addr), " has no score at stage ", &u64_str(stage)])
            })?;
            let new = old.checked_sub(amount).ok_or_else(|| {
                text(&[
                    "Insufficient score: ",
                    &quote(&addr),
                    " has ",
                    &u64_str(old),
                    " at stage ",
                    &u64_str(stage),
                    ", cannot decrease by ",
                    &u64_str(amount),
                ])
            })?;
            info.total_score = info.total_score.checked_sub(amount).ok_or_else(corrupt_total)?;
            store_score(stage, &addr, new);
            save_stage(&info);
            update_event(&mut res, &addr, stage, new, info.total_score);
        }
        Execute::FinalizeStage { stage } => finalize(stage, &mut res)?,
        Execute::AddAllowList { addr } => {
            check_address(&addr, "add_allow_list.addr")?;
            abi::storage_set(&state::allow_key(&addr), state::EMPTY_VALUE);
            res.event("add-allow-list", vec![("addr", addr)]);
        }
        Execute::RemoveAllowList { addr } => {
            check_address(&addr, "remove_allow_list.addr")?;
            remove_allowed(&addr)?;
            res.event("remove-allow-list", vec![("addr", addr)]);
        }
    }
    Ok(res)
}

pub fn query(msg: &[u8]) -> Result<Vec<u8>, String> {
    let v = json::parse(msg).map_err(|e| text(&["query message: ", &e]))?;
    let mut w = Writer::with_capacity(128);
    match msg::query(&v)? {
        Query::GetScore { addr, stage } => {
            check_address(&addr, "get_score.addr")?;
            let score = match load_score(stage, &addr)? {
                Some(s) => s,
                None => {
                    load_stage(stage)?;
                    return Err(text(&["Score not found: ", &quote(&addr), " has no score at stage ", &u64_str(stage)]));
                }
            };
            write_user_score(&mut w, stage, &addr, score);
        }
        Query::GetScores { stage, limit, start_after } => {
            let prefix = state::score_prefix(stage);
            let start = match &start_after {
                Some(a) => {
                    check_address(a, "get_scores.start_after")?;
                    // The smallest key after start_after's own key.
                    let mut k = state::score_key(stage, a);
                    k.push(0);
                    k
                }
                None => prefix.clone(),
            };
            let mut range = Range::new(&start, &state::score_range_end(stage));
            w.raw("{\"scores\":[");
            let mut n: u64 = 0;
            while n < limit {
                let (key, value) = match range.next_record() {
                    Some(r) => r,
                    None => break,
                };
                let addr = state::score_addr(&key, prefix.len())
                    .ok_or_else(|| String::from("stored state is corrupt: score key is not UTF-8"))?;
                if n > 0 {
                    w.raw(",");
                }
                write_user_score(&mut w, stage, &addr, state::decode_score(&value)?);
                n += 1;
            }
            w.raw("]}");
        }
        Query::GetStageInfo { stage } => load_stage(stage)?.write(&mut w),
    }
    Ok(w.into_bytes())
}

/// Accepts only an empty object and only over this contract's own state (or
/// the official contract's, which has the same layout).
pub fn migrate(msg: &[u8]) -> Result<Response, String> {
    let v = json::parse(msg).map_err(|e| text(&["migrate message: ", &e]))?;
    json::fields(&v, "migrate message", [])?;
    if abi::storage_get(state::INIT_STAGE_KEY).is_none() {
        return Err(String::from(
            "migrate: this contract's state has no init_stage; it is not a VIP score contract",
        ));
    }
    Ok(Response::default())
}

fn sender(info: &[u8]) -> Result<String, String> {
    let v = json::parse(info).map_err(|e| text(&["message info: ", &e]))?;
    match json::field(&v, "sender") {
        Some(s) => json::as_str(s, "message info sender").map(String::from),
        None => Err(String::from("message info has no sender")),
    }
}

fn check_allowed(sender: &str) -> Result<(), String> {
    if abi::storage_get(&state::allow_key(sender)).is_none() {
        return Err(text(&["Address is not allowed: ", &quote(sender), " is not on the allow list"]));
    }
    Ok(())
}

fn check_address(addr: &str, what: &str) -> Result<(), String> {
    abi::validate_address(addr).map_err(|reason| text(&[what, ": invalid address ", &quote(addr), ": ", &reason]))
}

fn load_stage(stage: u64) -> Result<StageInfo, String> {
    match abi::storage_get(&state::stage_key(stage)) {
        Some(data) => StageInfo::decode(&data),
        None => Err(text(&["Stage not found: stage ", &u64_str(stage), " does not exist"])),
    }
}

/// A stage whose scores may still change.
fn open_stage(stage: u64) -> Result<StageInfo, String> {
    let info = load_stage(stage)?;
    if info.is_finalized {
        return Err(text(&["Stage finalized: stage ", &u64_str(stage), " is final and its scores cannot change"]));
    }
    Ok(info)
}

fn save_stage(info: &StageInfo) {
    abi::storage_set(&state::stage_key(info.stage), &info.encode());
}

fn create_stage(stage: u64, res: &mut Response) {
    save_stage(&StageInfo {
        stage,
        total_score: 0,
        is_finalized: false,
    });
    res.event("create-stage", vec![("stage", u64_str(stage))]);
}

fn finalize(stage: u64, res: &mut Response) -> Result<(), String> {
    let mut info = load_stage(stage)?;
    if info.is_finalized {
        return Err(text(&["Stage already finalized: stage ", &u64_str(stage), " was finalized before"]));
    }
    let next = stage
        .checked_add(1)
        .ok_or_else(|| text(&["Stage ", &u64_str(stage), " is the last possible stage; it cannot be finalized"]))?;
    // Only the newest stage is open, so the next one cannot exist yet; check
    // anyway rather than overwrite scores.
    if abi::storage_get(&state::stage_key(next)).is_some() {
        return Err(text(&["Stage ", &u64_str(next), " already exists; refusing to overwrite it"]));
    }
    info.is_finalized = true;
    save_stage(&info);
    res.event("finalize-stage", vec![("stage", u64_str(stage))]);
    create_stage(next, res);
    Ok(())
}

fn load_score(stage: u64, addr: &str) -> Result<Option<u64>, String> {
    match abi::storage_get(&state::score_key(stage, addr)) {
        Some(data) => state::decode_score(&data).map(Some),
        None => Ok(None),
    }
}

fn store_score(stage: u64, addr: &str, score: u64) {
    abi::storage_set(&state::score_key(stage, addr), &state::encode_score(score));
}

/// Sets one address's score in an open stage, keeping the stage total.
fn set_score(info: &mut StageInfo, addr: &str, amount: u64, res: &mut Response) -> Result<(), String> {
    let key = state::score_key(info.stage, addr);
    let old = match abi::storage_get(&key) {
        Some(data) => Some(state::decode_score(&data)?),
        None => None,
    };
    let base = info.total_score.checked_sub(old.unwrap_or(0)).ok_or_else(corrupt_total)?;
    info.total_score = base.checked_add(amount).ok_or_else(|| {
        text(&["Score overflow: total score of stage ", &u64_str(info.stage), " would exceed the u64 maximum"])
    })?;
    // An unchanged score needs no write: resending a chunk stays cheap.
    if old != Some(amount) {
        abi::storage_set(&key, &state::encode_score(amount));
    }
    update_event(res, addr, info.stage, amount, info.total_score);
    Ok(())
}

fn corrupt_total() -> String {
    String::from("stored state is corrupt: stage total is smaller than a score in it")
}

fn update_event(res: &mut Response, addr: &str, stage: u64, score: u64, total: u64) {
    res.event(
        "update-score",
        vec![
            ("addr", String::from(addr)),
            ("stage", u64_str(stage)),
            ("score", u64_str(score)),
            ("total_score", u64_str(total)),
        ],
    );
}

fn remove_allowed(addr: &str) -> Result<(), String> {
    let key = state::allow_key(addr);
    if abi::storage_get(&key).is_none() {
        return Err(text(&["Address is not on the allow list: ", &quote(addr)]));
    }
    let (start, end) = state::allow_range();
    let mut range = Range::new(&start, &end);
    let mut members = 0;
    while members < 2 && range.next_record().is_some() {
        members += 1;
    }
    if members < 2 {
        return Err(text(&[
            "Cannot remove ",
            &quote(addr),
            ": it is the last address on the allow list and the contract would become unusable",
        ]));
    }
    abi::storage_remove(&key);
    Ok(())
}

fn write_user_score(w: &mut Writer, stage: u64, addr: &str, score: u64) {
    w.raw("{\"stage\":");
    w.u64(stage);
    w.raw(",\"addr\":");
    w.string(addr);
    w.raw(",\"score\":");
    w.u64(score);
    w.raw("}");
}
