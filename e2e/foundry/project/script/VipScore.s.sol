// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {VipScore} from "../src/VipScore.sol";

// The forge cheatcodes this script calls, declared here rather than imported from forge-std
// (not installable here): forge answers them at the cheatcode address.
interface Cheatcodes {
    function envUint(string calldata name) external view returns (uint256);
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
}

// DeployVipScore deploys the scoring contract as the official recipe does:
//   forge script script/VipScore.s.sol:DeployVipScore --rpc-url $JSON_RPC_URL --broadcast
// with PRIVATE_KEY (0x hex) signing and INIT_STAGE (the L1's stage) as the open stage.
contract DeployVipScore {
    Cheatcodes private constant VM = Cheatcodes(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() external returns (VipScore score) {
        uint256 key = VM.envUint("PRIVATE_KEY");
        uint64 initStage = uint64(VM.envUint("INIT_STAGE"));
        VM.startBroadcast(key);
        score = new VipScore(initStage);
        VM.stopBroadcast();
    }
}
