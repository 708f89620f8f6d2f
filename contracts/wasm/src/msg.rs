//! The contract's messages, with the JSON shapes of initia-labs/vip-score-wasm:
//! snake_case enum keys, u64 as JSON numbers, addresses as strings, and
//! `scores` as `[[address, score], ...]`. Decoding checks shape and types;
//! address validity is checked by the chain in the contract module.

use crate::json::{as_array, as_str, as_u64, fields, push_list, quote, required, u64_str, Value};
use std::string::String;
use std::vec::Vec;

#[cfg_attr(test, derive(Debug))]
pub struct Instantiate {
    pub allow_list: Vec<String>,
    pub init_stage: u64,
}

#[cfg_attr(test, derive(Debug))]
pub enum Execute {
    UpdateScores { stage: u64, scores: Vec<(String, u64)> },
    UpdateScore { addr: String, stage: u64, amount: u64 },
    IncreaseScore { addr: String, stage: u64, amount: u64 },
    DecreaseScore { addr: String, stage: u64, amount: u64 },
    FinalizeStage { stage: u64 },
    AddAllowList { addr: String },
    RemoveAllowList { addr: String },
}

#[cfg_attr(test, derive(Debug))]
pub enum Query {
    GetScore { addr: String, stage: u64 },
    GetScores { stage: u64, limit: u64, start_after: Option<String> },
    GetStageInfo { stage: u64 },
}

const EXECUTE_NAMES: [&str; 7] = [
    "update_scores",
    "update_score",
    "increase_score",
    "decrease_score",
    "finalize_stage",
    "add_allow_list",
    "remove_allow_list",
];

const QUERY_NAMES: [&str; 3] = ["get_score", "get_scores", "get_stage_info"];

pub fn instantiate(v: &Value) -> Result<Instantiate, String> {
    const CTX: &str = "instantiate";
    let [allow_list, init_stage] = fields(v, CTX, ["allow_list", "init_stage"])?;
    let list = as_array(required(allow_list, CTX, "allow_list")?, "allow_list")?;
    let mut addrs = Vec::with_capacity(list.len());
    for (i, a) in list.iter().enumerate() {
        addrs.push(String::from(as_str(a, &indexed("allow_list", i))?));
    }
    Ok(Instantiate {
        allow_list: addrs,
        init_stage: as_u64(required(init_stage, CTX, "init_stage")?, "init_stage")?,
    })
}

pub fn execute(v: &Value) -> Result<Execute, String> {
    let (name, body) = variant(v, "execute", &EXECUTE_NAMES)?;
    let msg = match name {
        "update_scores" => {
            let [stage, scores] = fields(body, name, ["stage", "scores"])?;
            let list = as_array(required(scores, name, "scores")?, "scores")?;
            let mut pairs = Vec::with_capacity(list.len());
            for (i, pair) in list.iter().enumerate() {
                pairs.push(score_pair(pair, i)?);
            }
            Execute::UpdateScores {
                stage: u64_field(stage, name, "stage")?,
                scores: pairs,
            }
        }
        "update_score" | "increase_score" | "decrease_score" => {
            let [addr, stage, amount] = fields(body, name, ["addr", "stage", "amount"])?;
            let addr = str_field(addr, name, "addr")?;
            let stage = u64_field(stage, name, "stage")?;
            let amount = u64_field(amount, name, "amount")?;
            match name {
                "update_score" => Execute::UpdateScore { addr, stage, amount },
                "increase_score" => Execute::IncreaseScore { addr, stage, amount },
                _ => Execute::DecreaseScore { addr, stage, amount },
            }
        }
        "finalize_stage" => {
            let [stage] = fields(body, name, ["stage"])?;
            Execute::FinalizeStage {
                stage: u64_field(stage, name, "stage")?,
            }
        }
        _ => {
            let [addr] = fields(body, name, ["addr"])?;
            let addr = str_field(addr, name, "addr")?;
            if name == "add_allow_list" {
                Execute::AddAllowList { addr }
            } else {
                Execute::RemoveAllowList { addr }
            }
        }
    };
    Ok(msg)
}

pub fn query(v: &Value) -> Result<Query, String> {
    let (name, body) = variant(v, "query", &QUERY_NAMES)?;
    let msg = match name {
        "get_score" => {
            let [addr, stage] = fields(body, name, ["addr", "stage"])?;
            Query::GetScore {
                addr: str_field(addr, name, "addr")?,
                stage: u64_field(stage, name, "stage")?,
            }
        }
        "get_scores" => {
            let [stage, limit, start_after] = fields(body, name, ["stage", "limit", "start_after"])?;
            let start_after = match start_after {
                None | Some(Value::Null) => None,
                Some(a) => Some(String::from(as_str(a, "start_after")?)),
            };
            Query::GetScores {
                stage: u64_field(stage, name, "stage")?,
                limit: u64_field(limit, name, "limit")?,
                start_after,
            }
        }
        _ => {
            let [stage] = fields(body, name, ["stage"])?;
            Query::GetStageInfo {
                stage: u64_field(stage, name, "stage")?,
            }
        }
    };
    Ok(msg)
}

/// Splits an externally tagged enum `{"name": {...}}` into its name (one of
/// `names`, returned as the static spelling) and body.
fn variant<'v, 'a>(
    v: &'v Value<'a>,
    kind: &str,
    names: &[&'static str],
) -> Result<(&'static str, &'v Value<'a>), String> {
    let mut m = String::from(kind);
    match v {
        Value::Object(items) if items.len() == 1 => {
            let (key, body) = &items[0];
            if let Some(name) = names.iter().find(|n| **n == key.as_ref()) {
                return Ok((name, body));
            }
            m.push_str(" message: unknown message ");
            m.push_str(&quote(key));
            m.push_str(", expected one of ");
        }
        _ => {
            m.push_str(" message: expected an object with exactly one key, one of ");
        }
    }
    push_list(&mut m, names);
    Err(m)
}

fn score_pair(v: &Value, i: usize) -> Result<(String, u64), String> {
    let name = indexed("scores", i);
    match v {
        Value::Array(pair) if pair.len() == 2 => {
            let mut addr_name = name.clone();
            addr_name.push_str("[0]");
            let mut score_name = name;
            score_name.push_str("[1]");
            Ok((
                String::from(as_str(&pair[0], &addr_name)?),
                as_u64(&pair[1], &score_name)?,
            ))
        }
        other => {
            let mut m = name;
            m.push_str(": expected a two-element array [address, score], got ");
            m.push_str(other.kind());
            if let Value::Array(items) = other {
                m.push_str(" of ");
                m.push_str(&u64_str(items.len() as u64));
            }
            Err(m)
        }
    }
}

fn indexed(name: &str, i: usize) -> String {
    let mut s = String::from(name);
    s.push('[');
    s.push_str(&u64_str(i as u64));
    s.push(']');
    s
}

fn u64_field(v: Option<&Value>, ctx: &str, name: &str) -> Result<u64, String> {
    as_u64(required(v, ctx, name)?, &dotted(ctx, name))
}

fn str_field(v: Option<&Value>, ctx: &str, name: &str) -> Result<String, String> {
    as_str(required(v, ctx, name)?, &dotted(ctx, name)).map(String::from)
}

fn dotted(ctx: &str, name: &str) -> String {
    let mut s = String::from(ctx);
    s.push('.');
    s.push_str(name);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn exec(src: &str) -> Result<Execute, String> {
        execute(&parse(src.as_bytes()).unwrap())
    }

    #[test]
    fn decodes_execute_messages() {
        match exec(r#"{"update_scores":{"stage":3,"scores":[["init1a",5],["init1b",0]]}}"#).unwrap() {
            Execute::UpdateScores { stage, scores } => {
                assert_eq!(stage, 3);
                assert_eq!(scores, vec![("init1a".to_string(), 5), ("init1b".to_string(), 0)]);
            }
            _ => panic!("wrong variant"),
        }
        match exec(r#"{"decrease_score":{"amount":2,"addr":"init1a","stage":9}}"#).unwrap() {
            Execute::DecreaseScore { addr, stage, amount } => assert_eq!((addr.as_str(), stage, amount), ("init1a", 9, 2)),
            _ => panic!("wrong variant"),
        }
        assert!(matches!(exec(r#"{"finalize_stage":{"stage":1}}"#), Ok(Execute::FinalizeStage { stage: 1 })));
    }

    #[test]
    fn explains_bad_execute_messages() {
        let cases = [
            (r#"{"update_scorez":{}}"#, "execute message: unknown message \"update_scorez\", expected one of update_scores,"),
            (r#"{}"#, "execute message: expected an object with exactly one key"),
            (r#"{"finalize_stage":{"stage":1},"update_score":{}}"#, "exactly one key"),
            (r#"{"finalize_stage":{}}"#, "finalize_stage: missing field `stage`"),
            (r#"{"finalize_stage":{"stage":"1"}}"#, "finalize_stage.stage: expected an unsigned integer, got a string"),
            (r#"{"update_score":{"addr":1,"stage":1,"amount":1}}"#, "update_score.addr: expected a string, got a number"),
            (r#"{"update_scores":{"stage":1,"scores":[["a",1],["b"]]}}"#, "scores[1]: expected a two-element array [address, score], got an array of 1"),
            (r#"{"update_scores":{"stage":1,"scores":[["a",-1]]}}"#, "scores[0][1] must not be negative"),
            (r#"{"update_scores":{"stage":1,"scores":{}}}"#, "scores: expected an array, got an object"),
        ];
        for (src, want) in cases {
            let err = exec(src).err().unwrap_or_default();
            assert!(err.contains(want), "{}: got {:?}", src, err);
        }
    }

    #[test]
    fn decodes_queries_and_instantiate() {
        let q = query(&parse(br#"{"get_scores":{"stage":2,"limit":10,"start_after":null}}"#).unwrap()).unwrap();
        assert!(matches!(q, Query::GetScores { stage: 2, limit: 10, start_after: None }));
        let q = query(&parse(br#"{"get_scores":{"stage":2,"limit":10,"start_after":"init1x"}}"#).unwrap()).unwrap();
        assert!(matches!(q, Query::GetScores { start_after: Some(ref a), .. } if a == "init1x"));
        let i = instantiate(&parse(br#"{"allow_list":["init1a"],"init_stage":7}"#).unwrap()).unwrap();
        assert_eq!((i.allow_list, i.init_stage), (vec!["init1a".to_string()], 7));
        let err = instantiate(&parse(br#"{"allow_list":["init1a",2],"init_stage":7}"#).unwrap()).err().unwrap();
        assert_eq!(err, "allow_list[1]: expected a string, got a number");
    }
}
