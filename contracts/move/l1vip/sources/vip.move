/// A stand-in for the Initia L1's vip module, as far as rollup operators meet it: the current
/// stage and its times in ModuleStore, moved on by the agent through entry functions, and
/// `register`, which a whitelist proposal calls, with the real signature and checks; and
/// after each stage, the agent's `submit_snapshot` of a bridge's merkle root and total score,
/// which users' `batch_claim_user_reward_script` proves their scores against (the real
/// score_hash and assert_merkle_proofs; the reward's vesting and payout are left out).
module vip::vip {
    use std::bcs;
    use std::error;
    use std::hash::sha3_256;
    use std::signer;
    use std::string::String;
    use std::option;
    use std::vector;
    use initia_std::block;
    use minitia_std::event;
    use initia_std::table_key;
    use minitia_std::bigdecimal::{Self, BigDecimal};
    use minitia_std::table::{Self, Table};

    const EUNAUTHORIZED: u64 = 1;
    const EALREADY_INITIALIZED: u64 = 2;
    const ESTAGE_BACKWARDS: u64 = 3;
    // The real module's codes for register's refusals (vip and vip::operator).
    const EBRIDGE_ALREADY_REGISTERED: u64 = 2;
    const EOVER_MAX_COMMISSION_RATE: u64 = 4;
    const EBRIDGE_NOT_FOUND: u64 = 5;
    const EINVALID_COMMISSION_RATE: u64 = 6;
    const EINVALID_VM_TYPE: u64 = 26;
    // The real module's codes for snapshots and claims.
    const ESNAPSHOT_ALREADY_EXISTS: u64 = 3;
    const ESTAGE_DATA_NOT_FOUND: u64 = 4;
    const ESNAPSHOT_NOT_FOUND: u64 = 6;
    const EPREV_STAGE_SNAPSHOT_NOT_FOUND: u64 = 8;
    const EINVALID_MERKLE_PROOFS: u64 = 10;
    const EINVALID_PROOF_LENGTH: u64 = 11;
    const EINVALID_CLAIMABLE_STAGE: u64 = 16;
    const EINVALID_BATCH_ARGUMENT: u64 = 17;
    const EINVALID_STAGE_ORDER: u64 = 20;
    const EINVALID_CLAIMABLE_PERIOD: u64 = 21;
    const EINVALID_STAGE_SNAPSHOT: u64 = 25;

    const PROOF_LENGTH: u64 = 32;

    // vm_type values, as the real module numbers them.
    const MOVEVM: u64 = 0;
    const WASMVM: u64 = 1;
    const EVM: u64 = 2;

    struct ModuleStore has key {
        stage: u64,
        stage_start_time: u64,
        stage_end_time: u64,
        stage_interval: u64,
        agent: address,
        // Seconds after a snapshot's creation before users can claim against it.
        challenge_period: u64,
        // Each stage the L1 has moved past, by table_key::encode_u64(stage), as the real
        // module keeps it.
        stage_data: Table<vector<u8>, StageData>
    }

    struct SnapshotKey has copy, drop {
        bridge_id: vector<u8>,
        version: vector<u8>
    }

    /// A stage's data; snapshots is its last field, as in the real StageData (whose reward
    /// fields the stand-in leaves out).
    struct StageData has store {
        stage_start_time: u64,
        stage_end_time: u64,
        snapshots: Table<SnapshotKey, Snapshot>
    }

    struct Snapshot has store, drop {
        create_time: u64,
        upsert_time: u64,
        merkle_root: vector<u8>,
        total_l2_score: u64
    }

    #[event]
    struct SubmitSnapshotEvent has drop, store {
        bridge_id: u64,
        version: u64,
        stage: u64,
        total_l2_score: u64,
        merkle_root: vector<u8>,
        create_time: u64
    }

    /// The last stage each account claimed per bridge and version (the real module keeps it
    /// in the account's vesting store).
    struct Claims has key {
        last_claimed: Table<vector<u8>, u64>
    }

    /// The registered rollups by bridge id, apart from ModuleStore so that its layout (which
    /// stage readers parse) stays as it was.
    struct Registry has key {
        bridges: Table<u64, Bridge>
    }

    /// What register got for a bridge.
    struct Bridge has store {
        init_stage: u64,
        version: u64,
        bridge_addr: address,
        operator_addr: address,
        vip_l2_score_contract: String,
        operator_commission_max_rate: BigDecimal,
        operator_commission_max_change_rate: BigDecimal,
        operator_commission_rate: BigDecimal,
        vm_type: u64
    }

    struct BridgeResponse has drop {
        bridge_id: u64,
        version: u64,
        init_stage: u64,
        bridge_addr: address,
        operator_addr: address,
        vip_l2_score_contract: String,
        operator_commission_max_rate: BigDecimal,
        operator_commission_max_change_rate: BigDecimal,
        operator_commission_rate: BigDecimal,
        vm_type: u64
    }

    /// Called once by the module's own account (at the stand-in's genesis).
    public entry fun initialize(
        chain: &signer, stage: u64, start_time: u64, interval: u64, agent: address
    ) {
        assert!(signer::address_of(chain) == @vip, error::permission_denied(EUNAUTHORIZED));
        assert!(!exists<ModuleStore>(@vip), error::already_exists(EALREADY_INITIALIZED));
        move_to(chain, ModuleStore {
            stage,
            stage_start_time: start_time,
            stage_end_time: start_time + interval,
            stage_interval: interval,
            agent,
            challenge_period: 0,
            stage_data: table::new<vector<u8>, StageData>()
        });
        move_to(chain, Registry { bridges: table::new<u64, Bridge>() });
        move_to(chain, Claims { last_claimed: table::new<vector<u8>, u64>() });
    }

    /// Registers a rollup for VIP (a governance proposal's MsgGovExecute calls it), with the
    /// real module's signature and checks: the chain signs (0x1 or the module's address),
    /// a bridge registers once, each rate is at most 1 and the rate at most the max rate, and
    /// the VM type is known. Scoring starts at the stage after the current one.
    public entry fun register(
        chain: &signer,
        operator: address,
        bridge_id: u64,
        bridge_address: address,
        vip_l2_score_contract: String,
        operator_commission_max_rate: BigDecimal,
        operator_commission_max_change_rate: BigDecimal,
        operator_commission_rate: BigDecimal,
        vm_type: u64
    ) acquires ModuleStore, Registry {
        let addr = signer::address_of(chain);
        assert!(addr == @vip || addr == @std, error::permission_denied(EUNAUTHORIZED));
        let registry = borrow_global_mut<Registry>(@vip);
        assert!(!table::contains(&registry.bridges, bridge_id), error::unavailable(EBRIDGE_ALREADY_REGISTERED));
        check_rate(&operator_commission_max_rate);
        check_rate(&operator_commission_max_change_rate);
        check_rate(&operator_commission_rate);
        assert!(
            bigdecimal::le(operator_commission_rate, operator_commission_max_rate),
            error::invalid_argument(EOVER_MAX_COMMISSION_RATE)
        );
        assert!(vm_type == MOVEVM || vm_type == WASMVM || vm_type == EVM, error::unavailable(EINVALID_VM_TYPE));
        table::add(&mut registry.bridges, bridge_id, Bridge {
            init_stage: borrow_global<ModuleStore>(@vip).stage + 1,
            version: 1,
            bridge_addr: bridge_address,
            operator_addr: operator,
            vip_l2_score_contract,
            operator_commission_max_rate,
            operator_commission_max_change_rate,
            operator_commission_rate,
            vm_type
        });
    }

    fun check_rate(rate: &BigDecimal) {
        assert!(bigdecimal::le(*rate, bigdecimal::one()), error::invalid_argument(EINVALID_COMMISSION_RATE));
    }

    #[view]
    public fun get_bridge_info(bridge_id: u64): BridgeResponse acquires Registry {
        let registry = borrow_global<Registry>(@vip);
        assert!(table::contains(&registry.bridges, bridge_id), error::not_found(EBRIDGE_NOT_FOUND));
        let b = table::borrow(&registry.bridges, bridge_id);
        bridge_response(bridge_id, b)
    }

    fun bridge_response(bridge_id: u64, b: &Bridge): BridgeResponse {
        BridgeResponse {
            bridge_id,
            version: b.version,
            init_stage: b.init_stage,
            bridge_addr: b.bridge_addr,
            operator_addr: b.operator_addr,
            vip_l2_score_contract: b.vip_l2_score_contract,
            operator_commission_max_rate: b.operator_commission_max_rate,
            operator_commission_max_change_rate: b.operator_commission_max_change_rate,
            operator_commission_rate: b.operator_commission_rate,
            vm_type: b.vm_type
        }
    }

    /// Moves to the next stage, which starts where the last one ended.
    public entry fun advance_stage(agent: &signer) acquires ModuleStore {
        let s = borrow_global_mut<ModuleStore>(@vip);
        assert!(signer::address_of(agent) == s.agent, error::permission_denied(EUNAUTHORIZED));
        let (start, end) = (s.stage_start_time, s.stage_end_time);
        add_stage_data(s, s.stage, start, end);
        s.stage = s.stage + 1;
        s.stage_start_time = s.stage_end_time;
        s.stage_end_time = s.stage_end_time + s.stage_interval;
    }

    /// Jumps forward to stage (a test moving the L1 on by several stages at once).
    public entry fun set_stage(agent: &signer, stage: u64) acquires ModuleStore {
        let s = borrow_global_mut<ModuleStore>(@vip);
        assert!(signer::address_of(agent) == s.agent, error::permission_denied(EUNAUTHORIZED));
        assert!(stage >= s.stage, error::invalid_argument(ESTAGE_BACKWARDS));
        if (stage == s.stage) return;
        let skipped = stage - s.stage - 1;
        let (st, start, end) = (s.stage, s.stage_start_time, s.stage_end_time);
        while (st < stage) {
            add_stage_data(s, st, start, end);
            st = st + 1;
            start = end;
            end = end + s.stage_interval;
        };
        s.stage = stage;
        s.stage_start_time = s.stage_end_time + skipped * s.stage_interval;
        s.stage_end_time = s.stage_start_time + s.stage_interval;
    }

    #[view]
    public fun get_stage(): u64 acquires ModuleStore {
        borrow_global<ModuleStore>(@vip).stage
    }

    /// Records a stage the L1 moves past: snapshots of it can be submitted from now on.
    fun add_stage_data(s: &mut ModuleStore, stage: u64, start: u64, end: u64) {
        let key = table_key::encode_u64(stage);
        if (table::contains(&s.stage_data, key)) return;
        table::add(&mut s.stage_data, key, StageData {
            stage_start_time: start,
            stage_end_time: end,
            snapshots: table::new<SnapshotKey, Snapshot>()
        });
    }

    #[view]
    /// Every registered bridge with its version, as the real view lists them.
    public fun get_bridge_infos(): vector<BridgeResponse> acquires Registry {
        let registry = borrow_global<Registry>(@vip);
        let out = vector::empty<BridgeResponse>();
        let iter = table::iter(&registry.bridges, option::none(), option::none(), 1);
        while (table::prepare<u64, Bridge>(iter)) {
            let (bridge_id, b) = table::next<u64, Bridge>(iter);
            vector::push_back(&mut out, bridge_response(bridge_id, b));
        };
        out
    }

    /// The agent's snapshot of a bridge's stage, with the real module's checks: the agent
    /// signs; the stage is behind the current one and the L1 has its stage data; unless it is
    /// the bridge's first stage, the previous stage has a snapshot of the same bridge and
    /// version; a key is snapshotted once.
    public entry fun submit_snapshot(
        agent: &signer,
        bridge_id: u64,
        version: u64,
        stage: u64,
        merkle_root: vector<u8>,
        total_l2_score: u64
    ) acquires ModuleStore, Registry {
        let module_store = borrow_global_mut<ModuleStore>(@vip);
        assert!(signer::address_of(agent) == module_store.agent, error::permission_denied(EUNAUTHORIZED));
        assert!(stage < module_store.stage, error::invalid_argument(EINVALID_STAGE_SNAPSHOT));
        assert!(
            table::contains(&module_store.stage_data, table_key::encode_u64(stage)),
            error::not_found(ESTAGE_DATA_NOT_FOUND)
        );
        let key = SnapshotKey { bridge_id: table_key::encode_u64(bridge_id), version: table_key::encode_u64(version) };
        let registry = borrow_global<Registry>(@vip);
        assert!(
            table::contains(&registry.bridges, bridge_id)
                && table::borrow(&registry.bridges, bridge_id).version == version,
            error::not_found(EBRIDGE_NOT_FOUND)
        );
        if (stage != table::borrow(&registry.bridges, bridge_id).init_stage) {
            let prev = table::borrow(&module_store.stage_data, table_key::encode_u64(stage - 1));
            assert!(table::contains(&prev.snapshots, key), error::not_found(EPREV_STAGE_SNAPSHOT_NOT_FOUND));
        };
        let stage_data = table::borrow_mut(&mut module_store.stage_data, table_key::encode_u64(stage));
        assert!(!table::contains(&stage_data.snapshots, key), error::already_exists(ESNAPSHOT_ALREADY_EXISTS));
        let (_, create_time) = block::get_block_info();
        table::add(&mut stage_data.snapshots, key, Snapshot { create_time, upsert_time: create_time, merkle_root, total_l2_score });
        event::emit(SubmitSnapshotEvent { bridge_id, version, stage, total_l2_score, merkle_root, create_time });
    }

    fun load_snapshot(module_store: &ModuleStore, stage: u64, bridge_id: u64, version: u64): &Snapshot {
        let stage_key = table_key::encode_u64(stage);
        assert!(table::contains(&module_store.stage_data, stage_key), error::not_found(ESTAGE_DATA_NOT_FOUND));
        let stage_data = table::borrow(&module_store.stage_data, stage_key);
        let key = SnapshotKey { bridge_id: table_key::encode_u64(bridge_id), version: table_key::encode_u64(version) };
        assert!(table::contains(&stage_data.snapshots, key), error::not_found(ESNAPSHOT_NOT_FOUND));
        table::borrow(&stage_data.snapshots, key)
    }

    /// A user's claim of consecutive stages, with the real signature and the real checks of
    /// scores: each stage's leaf is score_hash(bridge_id, stage, the signer, l2_score, the
    /// snapshot's total) and, unless l2_score is 0, its proof must lead to the snapshot's
    /// root. The claim is recorded (the next must start after it); no reward is paid.
    public entry fun batch_claim_user_reward_script(
        account: &signer,
        bridge_id: u64,
        version: u64,
        stages: vector<u64>,
        merkle_proofs: vector<vector<vector<u8>>>,
        l2_scores: vector<u64>
    ) acquires ModuleStore, Registry, Claims {
        let account_addr = signer::address_of(account);
        let len = vector::length(&stages);
        assert!(
            len != 0 && len == vector::length(&merkle_proofs) && len == vector::length(&l2_scores),
            error::invalid_argument(EINVALID_BATCH_ARGUMENT)
        );
        let module_store = borrow_global<ModuleStore>(@vip);
        let start_stage = *vector::borrow(&stages, 0);
        let end_stage = *vector::borrow(&stages, len - 1);
        let (_, now) = block::get_block_info();
        let last = load_snapshot(module_store, end_stage, bridge_id, version);
        assert!(now > last.create_time + module_store.challenge_period, error::permission_denied(EINVALID_CLAIMABLE_PERIOD));
        let registry = borrow_global<Registry>(@vip);
        assert!(
            table::contains(&registry.bridges, bridge_id)
                && table::borrow(&registry.bridges, bridge_id).version == version,
            error::not_found(EBRIDGE_NOT_FOUND)
        );
        let init_stage = table::borrow(&registry.bridges, bridge_id).init_stage;
        let claims = borrow_global_mut<Claims>(@vip);
        let claim_key = claim_key(account_addr, bridge_id, version);
        if (start_stage >= init_stage + 1 && table::contains(&claims.last_claimed, claim_key)) {
            assert!(
                *table::borrow(&claims.last_claimed, claim_key) == start_stage - 1,
                error::invalid_argument(EINVALID_CLAIMABLE_STAGE)
            );
        };
        let prev_stage = start_stage - 1;
        let i = 0;
        while (i < len) {
            let stage = *vector::borrow(&stages, i);
            assert!(stage == prev_stage + 1, error::invalid_argument(EINVALID_STAGE_ORDER));
            let l2_score = *vector::borrow(&l2_scores, i);
            let snapshot = load_snapshot(module_store, stage, bridge_id, version);
            let target_hash = score_hash(bridge_id, stage, account_addr, l2_score, snapshot.total_l2_score);
            if (l2_score != 0) {
                assert_merkle_proofs(*vector::borrow(&merkle_proofs, i), snapshot.merkle_root, target_hash);
            };
            prev_stage = stage;
            i = i + 1;
        };
        table::upsert(&mut claims.last_claimed, claim_key, end_stage);
    }

    fun claim_key(account: address, bridge_id: u64, version: u64): vector<u8> {
        let k = bcs::to_bytes(&account);
        append(&mut k, table_key::encode_u64(bridge_id));
        append(&mut k, table_key::encode_u64(version));
        k
    }

    #[view]
    /// The last stage account claimed of a bridge's version (0: none).
    public fun get_last_claimed_stage(account: address, bridge_id: u64, version: u64): u64 acquires Claims {
        let claims = borrow_global<Claims>(@vip);
        let key = claim_key(account, bridge_id, version);
        if (!table::contains(&claims.last_claimed, key)) return 0;
        *table::borrow(&claims.last_claimed, key)
    }

    // Compares two 32-byte hashes: 0 equal, 1 v1 greater, 2 v1 less (as the real bytes_cmp).
    fun bytes_cmp(v1: &vector<u8>, v2: &vector<u8>): u8 {
        assert!(vector::length(v1) == PROOF_LENGTH, error::invalid_argument(EINVALID_PROOF_LENGTH));
        assert!(vector::length(v2) == PROOF_LENGTH, error::invalid_argument(EINVALID_PROOF_LENGTH));
        let i = 0;
        while (i < 32) {
            let e1 = *vector::borrow(v1, i);
            let e2 = *vector::borrow(v2, i);
            if (e1 > e2) return 1;
            if (e2 > e1) return 2;
            i = i + 1;
        };
        0
    }

    fun score_hash(bridge_id: u64, stage: u64, account_addr: address, l2_score: u64, total_l2_score: u64): vector<u8> {
        let data = bcs::to_bytes(&bridge_id);
        append(&mut data, bcs::to_bytes(&stage));
        append(&mut data, bcs::to_bytes(&account_addr));
        append(&mut data, bcs::to_bytes(&l2_score));
        append(&mut data, bcs::to_bytes(&total_l2_score));
        sha3_256(data)
    }

    // Folds each proof element into the leaf's hash, the smaller first, and checks the root.
    fun assert_merkle_proofs(merkle_proofs: vector<vector<u8>>, merkle_root: vector<u8>, target_hash: vector<u8>) {
        let seed = target_hash;
        let i = 0;
        let len = vector::length(&merkle_proofs);
        while (i < len) {
            let proof = vector::borrow(&merkle_proofs, i);
            let tmp = vector::empty<u8>();
            if (bytes_cmp(&seed, proof) == 2) {
                append(&mut tmp, seed);
                append(&mut tmp, *proof);
            } else {
                append(&mut tmp, *proof);
                append(&mut tmp, seed);
            };
            seed = sha3_256(tmp);
            i = i + 1;
        };
        assert!(merkle_root == seed, error::invalid_argument(EINVALID_MERKLE_PROOFS));
    }

    // vector::append of MoveStdlib, kept here so the framework stays as small as it is.
    fun append(lhs: &mut vector<u8>, other: vector<u8>) {
        let n = vector::length(&other);
        let i = 0;
        while (i < n) {
            vector::push_back(lhs, *vector::borrow(&other, i));
            i = i + 1;
        };
    }
}
