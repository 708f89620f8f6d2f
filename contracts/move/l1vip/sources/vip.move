/// A stand-in for the Initia L1's vip module, as far as rollup operators meet it: the current
/// stage and its times in ModuleStore, moved on by the agent through entry functions, and
/// `register`, which a whitelist proposal calls, with the real signature and checks.
module vip::vip {
    use std::error;
    use std::signer;
    use std::string::String;
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

    // vm_type values, as the real module numbers them.
    const MOVEVM: u64 = 0;
    const WASMVM: u64 = 1;
    const EVM: u64 = 2;

    struct ModuleStore has key {
        stage: u64,
        stage_start_time: u64,
        stage_end_time: u64,
        stage_interval: u64,
        agent: address
    }

    /// The registered rollups by bridge id, apart from ModuleStore so that its layout (which
    /// stage readers parse) stays as it was.
    struct Registry has key {
        bridges: Table<u64, Bridge>
    }

    /// What register got for a bridge.
    struct Bridge has store {
        init_stage: u64,
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
            agent
        });
        move_to(chain, Registry { bridges: table::new<u64, Bridge>() });
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
        BridgeResponse {
            bridge_id,
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
        s.stage = stage;
        s.stage_start_time = s.stage_end_time + skipped * s.stage_interval;
        s.stage_end_time = s.stage_start_time + s.stage_interval;
    }

    #[view]
    public fun get_stage(): u64 acquires ModuleStore {
        borrow_global<ModuleStore>(@vip).stage
    }
}
