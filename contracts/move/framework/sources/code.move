/// Module publishing: the VM turns `publish_v2` into a publish request, checks the bundle,
/// then calls `verify_publish_request` here to apply the allow list and upgrade policies.
/// At genesis it calls `init_genesis` for the framework itself. The public functions have
/// MinitiaStdlib's signatures; `freeze_code_object` (objects) is left out.
module minitia_std::code {
    use std::error;
    use std::event;
    use std::signer;
    use std::string::String;
    use std::vector;
    use minitia_std::table::{Self, Table};

    struct ModuleStore has key {
        /// Who may publish; empty means anyone.
        allowed_publishers: vector<address>,
        total_modules: u64
    }

    struct MetadataStore has key {
        metadata: Table<String, ModuleMetadata>
    }

    struct ModuleMetadata has store, copy, drop {
        upgrade_policy: u8
    }

    #[event]
    struct ModulePublishedEvent has store, drop {
        module_id: String,
        upgrade_policy: u8
    }

    const EUPGRADE_IMMUTABLE: u64 = 0x1;
    const EUPGRADE_WEAKER_POLICY: u64 = 0x2;
    const EUPGRADE_POLICY_UNSPECIFIED: u64 = 0x3;
    const EINVALID_CHAIN_OPERATOR: u64 = 0x4;
    const EINVALID_ALLOWED_PUBLISHERS: u64 = 0x5;
    const EDUPLICATE_MODULE_ID: u64 = 0x6;
    const EPACKAGE_DEP_MISSING: u64 = 0x9;
    const EDEP_WEAKER_POLICY: u64 = 0xA;

    const UPGRADE_POLICY_COMPATIBLE: u8 = 1;
    const UPGRADE_POLICY_IMMUTABLE: u8 = 2;

    /// A policy may only be kept or made stricter.
    public fun can_change_upgrade_policy_to(from: u8, to: u8): bool { from <= to }

    fun init_module(chain: &signer) {
        move_to(chain, ModuleStore { allowed_publishers: vector[], total_modules: 0 });
    }

    #[view]
    public fun allowed_publishers(): vector<address> acquires ModuleStore {
        borrow_global<ModuleStore>(@minitia_std).allowed_publishers
    }

    #[view]
    public fun total_modules(): u64 acquires ModuleStore {
        borrow_global<ModuleStore>(@minitia_std).total_modules
    }

    #[deprecated]
    public entry fun publish(
        owner: &signer, _module_ids: vector<String>, code: vector<vector<u8>>, upgrade_policy: u8
    ) {
        publish_v2(owner, code, upgrade_policy);
    }

    public entry fun publish_v2(owner: &signer, code: vector<vector<u8>>, upgrade_policy: u8) {
        request_publish(signer::address_of(owner), code, upgrade_policy)
    }

    public entry fun set_allowed_publishers(
        chain: &signer, allowed_publishers: vector<address>
    ) acquires ModuleStore {
        assert!(signer::address_of(chain) == @minitia_std, error::permission_denied(EINVALID_CHAIN_OPERATOR));
        check_allowed(&allowed_publishers, @minitia_std);
        borrow_global_mut<ModuleStore>(@minitia_std).allowed_publishers = allowed_publishers;
    }

    fun check_allowed(allowed: &vector<address>, addr: address) {
        assert!(
            vector::is_empty(allowed) || vector::contains(allowed, &addr),
            error::invalid_argument(EINVALID_ALLOWED_PUBLISHERS)
        )
    }

    fun check_unique(module_ids: &vector<String>) {
        let n = vector::length(module_ids);
        let i = 0;
        while (i < n) {
            let j = i + 1;
            while (j < n) {
                assert!(
                    vector::borrow(module_ids, i) != vector::borrow(module_ids, j),
                    error::invalid_argument(EDUPLICATE_MODULE_ID)
                );
                j = j + 1;
            };
            i = i + 1;
        }
    }

    /// Genesis: record the framework's modules as compatible and set the allow list.
    fun init_genesis(
        chain: &signer, module_ids: vector<String>, allowed_publishers: vector<address>
    ) acquires ModuleStore {
        assert!(signer::address_of(chain) == @minitia_std, error::permission_denied(EINVALID_CHAIN_OPERATOR));
        check_unique(&module_ids);
        let metadata = table::new<String, ModuleMetadata>();
        let i = 0;
        let n = vector::length(&module_ids);
        while (i < n) {
            table::add(&mut metadata, *vector::borrow(&module_ids, i), ModuleMetadata { upgrade_policy: UPGRADE_POLICY_COMPATIBLE });
            i = i + 1;
        };
        move_to(chain, MetadataStore { metadata });
        set_allowed_publishers(chain, allowed_publishers);
        let store = borrow_global_mut<ModuleStore>(@minitia_std);
        store.total_modules = store.total_modules + n;
    }

    /// Called by the VM after it checked a publish request's bundle.
    fun verify_publish_request(
        publisher: &signer,
        module_ids: vector<String>,
        vec_dependency_addresses: vector<vector<address>>,
        vec_dependency_ids: vector<vector<String>>,
        upgrade_policy: u8
    ) acquires ModuleStore, MetadataStore {
        check_unique(&module_ids);
        assert!(
            upgrade_policy == UPGRADE_POLICY_COMPATIBLE || upgrade_policy == UPGRADE_POLICY_IMMUTABLE,
            error::invalid_argument(EUPGRADE_POLICY_UNSPECIFIED)
        );
        let addr = signer::address_of(publisher);
        check_allowed(&borrow_global<ModuleStore>(@minitia_std).allowed_publishers, addr);
        if (!exists<MetadataStore>(addr)) {
            move_to(publisher, MetadataStore { metadata: table::new() });
        };
        let metadata = &mut borrow_global_mut<MetadataStore>(addr).metadata;
        let added = 0;
        let i = 0;
        while (i < vector::length(&module_ids)) {
            let id = *vector::borrow(&module_ids, i);
            if (table::contains(metadata, id)) {
                let m = table::borrow_mut(metadata, id);
                assert!(m.upgrade_policy < UPGRADE_POLICY_IMMUTABLE, error::invalid_argument(EUPGRADE_IMMUTABLE));
                assert!(can_change_upgrade_policy_to(m.upgrade_policy, upgrade_policy), error::invalid_argument(EUPGRADE_WEAKER_POLICY));
                m.upgrade_policy = upgrade_policy;
            } else {
                table::add(metadata, id, ModuleMetadata { upgrade_policy });
                added = added + 1;
            };
            event::emit(ModulePublishedEvent { module_id: id, upgrade_policy });
            i = i + 1;
        };
        if (added > 0) {
            let store = borrow_global_mut<ModuleStore>(@minitia_std);
            store.total_modules = store.total_modules + added;
        };
        // Every dependency outside 0x1 must be published with a policy at least as strict.
        let i = 0;
        while (i < vector::length(&vec_dependency_addresses)) {
            let addrs = vector::borrow(&vec_dependency_addresses, i);
            let ids = vector::borrow(&vec_dependency_ids, i);
            let j = 0;
            while (j < vector::length(addrs)) {
                let dep = *vector::borrow(addrs, j);
                let id = *vector::borrow(ids, j);
                assert!(exists<MetadataStore>(dep), error::not_found(EPACKAGE_DEP_MISSING));
                let deps = &borrow_global<MetadataStore>(dep).metadata;
                assert!(table::contains(deps, id), error::not_found(EPACKAGE_DEP_MISSING));
                assert!(table::borrow(deps, id).upgrade_policy >= upgrade_policy, error::invalid_argument(EDEP_WEAKER_POLICY));
                j = j + 1;
            };
            i = i + 1;
        }
    }

    /// Hands the bundle to the VM, which publishes it after this function returns.
    native fun request_publish(owner: address, code: vector<vector<u8>>, upgrade_policy: u8);
}
