/// The VIP score contract for Move rollups: the operator (an allowed deployer) writes a
/// score per address for the open stage and finalizes it, which opens the next. Its entry
/// functions, views, events and abort codes are the official vip_score's; the stages and
/// the deployer set live in tables.
module vip_score::vip_score {
    use std::error;
    use std::event;
    use std::option::{Self, Option};
    use std::signer;
    use std::vector;
    use minitia_std::table::{Self, Table};

    // Abort reasons (with the official categories).
    const EUNAUTHORIZED: u64 = 1;
    const EINSUFFICIENT_SCORE: u64 = 2;
    const EINVALID_STAGE: u64 = 3;
    const EDEPLOYER_ALREADY_ADDED: u64 = 4;
    const EDEPLOYER_NOT_FOUND: u64 = 5;
    const ENOT_MATCH_LENGTH: u64 = 6;
    const EINVALID_SCORE: u64 = 7;
    const EFINALIZED_STAGE: u64 = 8;
    const ESTAGE_ZERO: u64 = 9;
    const EALREADY_SET: u64 = 10;

    /// get_scores returns at most this many rows.
    const MAX_LIMIT: u16 = 1000;

    struct ModuleStore has key {
        init_stage: u64,
        deployers: Table<address, bool>,
        stages: Table<u64, Stage>
    }

    struct Stage has store {
        total_score: u64,
        is_finalized: bool,
        scores: Table<address, u64>
    }

    struct GetScoresResponse {
        stage: u64,
        scores: vector<Score>
    }

    struct Score {
        addr: address,
        score: u64
    }

    #[event]
    struct DeployerAddedEvent has drop, store {
        deployer: address
    }

    #[event]
    struct DeployerRemovedEvent has drop, store {
        deployer: address
    }

    #[event]
    struct UpdateScoreEvent has drop, store {
        account: address,
        stage: u64,
        score: u64,
        total_score: u64
    }

    #[event]
    struct FinalizedScoreEvent has drop, store {
        stage: u64
    }

    fun init_module(publisher: &signer) {
        move_to(publisher, ModuleStore { init_stage: 0, deployers: table::new(), stages: table::new() });
    }

    // Access.

    /// Only the publisher manages the deployer set.
    fun assert_publisher(s: &signer) {
        assert!(signer::address_of(s) == @vip_score, error::permission_denied(EUNAUTHORIZED));
    }

    fun assert_deployer(store: &ModuleStore, s: &signer) {
        assert!(table::contains(&store.deployers, signer::address_of(s)), error::invalid_argument(EUNAUTHORIZED));
    }

    /// The open stage `stage`, for writing.
    fun open_stage(store: &mut ModuleStore, stage: u64): &mut Stage {
        assert!(table::contains(&store.stages, stage), error::invalid_argument(EINVALID_STAGE));
        let s = table::borrow_mut(&mut store.stages, stage);
        assert!(!s.is_finalized, error::invalid_argument(EFINALIZED_STAGE));
        s
    }

    fun new_stage(store: &mut ModuleStore, stage: u64) {
        table::add(&mut store.stages, stage, Stage { total_score: 0, is_finalized: false, scores: table::new() });
    }

    /// Sets one score and reports it; returns the stage's new total, which the caller keeps
    /// (a batch writes it back once). Inline, and a new address costs one lookup and one add
    /// (no default entry added first and then borrowed): the table write and the event are
    /// most of what is left (BENCHMARKS.md, Move gas).
    inline fun set_score(scores: &mut Table<address, u64>, total: u64, stage: u64, account: address, amount: u64): u64 {
        let total_score = if (table::contains(scores, account)) {
            let score = table::borrow_mut(scores, account);
            let t = total - *score + amount;
            *score = amount;
            t
        } else {
            table::add(scores, account, amount);
            total + amount
        };
        event::emit(UpdateScoreEvent { account, stage, score: amount, total_score });
        total_score
    }

    /// One score outside a batch (a function, so the inline body is not copied thrice more).
    fun set_one(s: &mut Stage, stage: u64, account: address, amount: u64) {
        s.total_score = set_score(&mut s.scores, s.total_score, stage, account, amount);
    }

    // Entry functions.

    public entry fun add_deployer_script(publisher: &signer, deployer: address) acquires ModuleStore {
        assert_publisher(publisher);
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert!(!table::contains(&store.deployers, deployer), error::invalid_argument(EDEPLOYER_ALREADY_ADDED));
        table::add(&mut store.deployers, deployer, true);
        event::emit(DeployerAddedEvent { deployer });
    }

    public entry fun remove_deployer_script(publisher: &signer, deployer: address) acquires ModuleStore {
        assert_publisher(publisher);
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert!(table::contains(&store.deployers, deployer), error::invalid_argument(EDEPLOYER_NOT_FOUND));
        table::remove(&mut store.deployers, deployer);
        event::emit(DeployerRemovedEvent { deployer });
    }

    /// Opens the first stage; once.
    public entry fun set_init_stage(deployer: &signer, stage: u64) acquires ModuleStore {
        assert!(stage != 0, error::invalid_argument(ESTAGE_ZERO));
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert_deployer(store, deployer);
        assert!(store.init_stage == 0, error::already_exists(EALREADY_SET));
        store.init_stage = stage;
        new_stage(store, stage);
    }

    public entry fun update_score_script(deployer: &signer, stage: u64, addrs: vector<address>, update_scores: vector<u64>) acquires ModuleStore {
        // The deployer before the lengths, as the official module: a stranger learns only
        // that it is not allowed (EUNAUTHORIZED), whatever it sends.
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert_deployer(store, deployer);
        let n = vector::length(&addrs);
        assert!(n == vector::length(&update_scores), error::invalid_argument(ENOT_MATCH_LENGTH));
        let s = open_stage(store, stage);
        let total = s.total_score;
        let i = 0;
        while (i < n) {
            total = set_score(&mut s.scores, total, stage, *vector::borrow(&addrs, i), *vector::borrow(&update_scores, i));
            i = i + 1;
        };
        s.total_score = total;
    }

    /// Finalizes the open stage and opens the next; a finalized stage stays final, and an
    /// existing next stage is never replaced.
    public entry fun finalize_script(deployer: &signer, stage: u64) acquires ModuleStore {
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert_deployer(store, deployer);
        open_stage(store, stage).is_finalized = true;
        assert!(!table::contains(&store.stages, stage + 1), error::invalid_argument(EINVALID_STAGE));
        new_stage(store, stage + 1);
        event::emit(FinalizedScoreEvent { stage });
    }

    // Public functions for other modules.

    public fun update_score(deployer: &signer, account: address, stage: u64, amount: u64) acquires ModuleStore {
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert_deployer(store, deployer);
        set_one(open_stage(store, stage), stage, account, amount);
    }

    public fun increase_score(deployer: &signer, account: address, stage: u64, amount: u64) acquires ModuleStore {
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert_deployer(store, deployer);
        let s = open_stage(store, stage);
        let old = *table::borrow_with_default(&s.scores, account, &0);
        set_one(s, stage, account, old + amount);
    }

    public fun decrease_score(deployer: &signer, account: address, stage: u64, amount: u64) acquires ModuleStore {
        let store = borrow_global_mut<ModuleStore>(@vip_score);
        assert_deployer(store, deployer);
        let s = open_stage(store, stage);
        assert!(table::contains(&s.scores, account), error::invalid_argument(EINSUFFICIENT_SCORE));
        let old = *table::borrow(&s.scores, account);
        assert!(old >= amount, error::invalid_argument(EINSUFFICIENT_SCORE));
        set_one(s, stage, account, old - amount);
    }

    // Views.

    #[view]
    /// Up to `limit` (at most 1,000) scores of a stage in descending address order, after
    /// `start_after` (exclusive) when given; an unknown stage has none.
    public fun get_scores(stage: u64, limit: u16, start_after: Option<address>): GetScoresResponse acquires ModuleStore {
        let store = borrow_global<ModuleStore>(@vip_score);
        let scores = vector::empty<Score>();
        if (!table::contains(&store.stages, stage)) return GetScoresResponse { stage, scores };
        if (limit > MAX_LIMIT) limit = MAX_LIMIT;
        let s = table::borrow(&store.stages, stage);
        let it = table::iter(&s.scores, option::none(), start_after, 2);
        while (vector::length(&scores) < (limit as u64) && table::prepare(it)) {
            let (addr, score) = table::next(it);
            vector::push_back(&mut scores, Score { addr, score: *score });
        };
        GetScoresResponse { stage, scores }
    }

    #[view]
    public fun get_score(account: address, stage: u64): u64 acquires ModuleStore {
        let store = borrow_global<ModuleStore>(@vip_score);
        if (!table::contains(&store.stages, stage)) return 0;
        *table::borrow_with_default(&table::borrow(&store.stages, stage).scores, account, &0)
    }

    #[view]
    public fun get_total_score(stage: u64): u64 acquires ModuleStore {
        let store = borrow_global<ModuleStore>(@vip_score);
        if (!table::contains(&store.stages, stage)) return 0;
        table::borrow(&store.stages, stage).total_score
    }
}
