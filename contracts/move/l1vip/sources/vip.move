/// A stand-in for the Initia L1's vip module, as far as rollup operators read it: the current
/// stage and its times in ModuleStore, moved on by the agent through entry functions.
module vip::vip {
    use std::error;
    use std::signer;

    const EUNAUTHORIZED: u64 = 1;
    const EALREADY_INITIALIZED: u64 = 2;
    const ESTAGE_BACKWARDS: u64 = 3;

    struct ModuleStore has key {
        stage: u64,
        stage_start_time: u64,
        stage_end_time: u64,
        stage_interval: u64,
        agent: address
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
