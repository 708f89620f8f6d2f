/// Entry points around vip_score's public functions for other modules.
module caller::caller {
    use vip_score::vip_score;

    public entry fun update(deployer: &signer, account: address, stage: u64, amount: u64) {
        vip_score::update_score(deployer, account, stage, amount);
    }

    public entry fun increase(deployer: &signer, account: address, stage: u64, amount: u64) {
        vip_score::increase_score(deployer, account, stage, amount);
    }

    public entry fun decrease(deployer: &signer, account: address, stage: u64, amount: u64) {
        vip_score::decrease_score(deployer, account, stage, amount);
    }
}
