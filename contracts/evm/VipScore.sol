// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

// VipScore keeps per-stage VIP scores for a rollup. Its outside (every function, event and
// error, with their selectors and topics) is that of the official initia-labs/vip-score-evm
// contract; fixtures/evm/official_signatures.json lists it and a Go test holds us to it.
//
// The inside differs, to make a new address cheap:
//   - a score is one storage slot per (stage, address), written once per update;
//   - a stage's total is written once per call, not once per address;
//   - the stage's address list (the order getScores pages through) is not kept in one
//     storage slot per address. updateScores writes the addresses it adds as the code of a
//     small data contract (a STOP byte, then 20 bytes per address; ~200 gas a byte instead
//     of 22,100 gas a slot) and records it as one segment of the list. Calls that add only
//     one or two addresses, where a contract creation costs more than it saves, record each
//     as a segment of its own that holds the address itself (as the official contract
//     spends one slot per listed address).
// Finalizing a stage twice is refused with StageFinalized: a stage closes once.

error PermissionDenied(address deniedAddress);
error ZeroStage();
error AddrsAndAmountsLengthMistmatch();
error StageNotFound(uint64 stage);
error StageFinalized(uint64 stage);

event CreateStage(uint64 stage);

event FinalizeStage(uint64 stage);

event UpdateScore(address indexed addr, uint64 indexed stage, uint64 score, uint64 totalScore);

contract VipScore {
    struct StageInfo {
        uint64 stage;
        uint64 totalScore;
        bool isFinalized;
    }

    // One slot: isIndexed in the lowest byte, amount in the next eight.
    struct Score {
        bool isIndexed;
        uint64 amount;
    }

    struct ScoreResponse {
        address addr;
        uint64 amount;
        uint64 index;
    }

    // Positions [start, end) of a stage's address list. data is the data contract holding
    // them or, when direct, the one address listed at start. One slot.
    struct Segment {
        address data;
        uint40 start;
        uint40 end;
        bool direct;
    }

    // A stage's address list: its length and how many segments hold it. One slot.
    struct List {
        uint40 length;
        uint32 segmentCount;
    }

    // Addresses per data contract: (24,576-byte code size limit - 1 STOP byte) / 20.
    uint256 private constant SEGMENT_MAX = 1228;
    // Up to this many added addresses become direct segments instead of a data contract.
    uint256 private constant DIRECT_MAX = 2;
    // Length of the data contract's init code (see appendCode) plus its leading STOP byte.
    uint256 private constant HEAD_LEN = 13;

    uint64 public initStage;
    mapping(uint64 => StageInfo) public stages;
    mapping(uint64 => mapping(address => Score)) public scores;
    mapping(address => bool) public allowList;
    mapping(uint64 => List) private lists;
    mapping(uint64 => mapping(uint256 => Segment)) private segments;

    constructor(uint64 initStage_) {
        allowList[msg.sender] = true;
        initStage = initStage_;
        createStage(initStage_);
    }

    modifier onlyAllowed() {
        if (!allowList[msg.sender]) {
            revert PermissionDenied(msg.sender);
        }
        _;
    }

    function finalizeStage(uint64 stage) external onlyAllowed {
        StageInfo storage info = stages[stage];
        uint256 v;
        assembly {
            v := sload(info.slot)
        }
        if (uint64(v) == 0) {
            revert StageNotFound(stage);
        }
        // Finalizing twice is refused rather than re-announced: a stage closes once.
        if ((v >> 128) & 1 != 0) {
            revert StageFinalized(stage);
        }
        assembly {
            // isFinalized is the byte after stage and totalScore (two uint64s).
            sstore(info.slot, or(v, shl(128, 1)))
        }
        emit FinalizeStage(stage);
        createStage(stage + 1);
    }

    function addAllowList(address addr) external onlyAllowed {
        allowList[addr] = true;
    }

    function removeAllowList(address addr) external onlyAllowed {
        delete allowList[addr];
    }

    // The zero address is ignored, as by the official contract.
    function updateScore(uint64 stage, address addr, uint64 amount) external onlyAllowed {
        if (addr == address(0)) {
            return;
        }
        uint64 total = openTotal(stage);
        (uint256 slot, bool listed, uint64 old) = readScore(stage, addr);
        // Checked: a total above u64 reverts with Panic(0x11), as the official contract's
        // increaseScore does (its updateScore wraps the total silently; ours never does).
        total = total - old + amount;
        writeOne(stage, addr, slot, listed, amount, total);
    }

    function increaseScore(uint64 stage, address addr, uint64 amount) external onlyAllowed {
        if (addr == address(0)) {
            return;
        }
        uint64 total = openTotal(stage) + amount;
        (uint256 slot, bool listed, uint64 old) = readScore(stage, addr);
        writeOne(stage, addr, slot, listed, old + amount, total);
    }

    function decreaseScore(uint64 stage, address addr, uint64 amount) external onlyAllowed {
        if (addr == address(0)) {
            return;
        }
        uint64 total = openTotal(stage) - amount;
        (uint256 slot, bool listed, uint64 old) = readScore(stage, addr);
        writeOne(stage, addr, slot, listed, old - amount, total);
    }

    // Sets each address's score (zero addresses are skipped), emitting UpdateScore with the
    // running total after each, and stores the total once.
    function updateScores(uint64 stage, address[] calldata addrs, uint64[] calldata amounts) external onlyAllowed {
        if (addrs.length != amounts.length) {
            revert AddrsAndAmountsLengthMistmatch();
        }
        // Held in 256 bits, where it cannot wrap, and checked against the u64 limit after
        // each entry (cheaper than checked uint64 arithmetic).
        uint256 total = openTotal(stage);
        mapping(address => Score) storage stageScores = scores[stage];
        uint256 n = addrs.length;
        // Added addresses are packed (20 bytes each) after HEAD_LEN bytes of room for the
        // data contract's head; 12 spare bytes take the tail of the last 32-byte store.
        bytes memory list = new bytes(HEAD_LEN + n * 20 + 12);
        uint256 cursor;
        assembly {
            cursor := add(list, add(32, HEAD_LEN))
        }
        uint256 added;
        for (uint256 i; i < n; ) {
            address addr = addrs[i];
            if (addr != address(0)) {
                uint64 amount = amounts[i];
                Score storage s = stageScores[addr];
                uint256 old;
                assembly {
                    old := sload(s.slot)
                    sstore(s.slot, or(1, shl(8, amount)))
                }
                if (old & 1 == 0) {
                    assembly {
                        mstore(cursor, shl(96, addr))
                        cursor := add(cursor, 20)
                    }
                    unchecked {
                        ++added;
                    }
                }
                unchecked {
                    total = total - (old >> 8) + amount;
                }
                if (total > type(uint64).max) {
                    overflow();
                }
                emit UpdateScore(addr, stage, amount, uint64(total));
            }
            unchecked {
                ++i;
            }
        }
        stages[stage].totalScore = uint64(total);
        if (added > DIRECT_MAX) {
            appendCode(stage, list, added);
        } else {
            for (uint256 k; k < added; ++k) {
                address addr;
                assembly {
                    addr := shr(96, mload(add(list, add(add(32, HEAD_LEN), mul(k, 20)))))
                }
                appendDirect(stage, addr);
            }
        }
    }

    // Returns limit rows from list position offset (index is the 1-based position). Like the
    // official contract, the array always has limit entries: rows past the end are zero.
    function getScores(uint64 stage, uint64 offset, uint64 limit) public view returns (ScoreResponse[] memory) {
        ScoreResponse[] memory response = new ScoreResponse[](limit);
        List memory list = lists[stage];
        uint256 length = list.length;
        if (offset >= length || limit == 0) {
            return response;
        }
        mapping(uint256 => Segment) storage segs = segments[stage];
        // Binary search for the segment holding offset: the first whose end lies past it.
        uint256 lo;
        uint256 hi = list.segmentCount - 1;
        while (lo < hi) {
            uint256 mid = (lo + hi) / 2;
            if (segs[mid].end > offset) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        uint256 pos = offset;
        uint256 filled;
        while (filled < limit && pos < length) {
            Segment memory seg = segs[lo];
            uint256 take = seg.end - pos;
            if (take > limit - filled) {
                take = limit - filled;
            }
            readSegment(stage, response, filled, seg, pos, take);
            filled += take;
            pos += take;
            ++lo;
        }
        return response;
    }

    // Fills response[filled, filled+take) from seg, starting at list position pos.
    function readSegment(
        uint64 stage,
        ScoreResponse[] memory response,
        uint256 filled,
        Segment memory seg,
        uint256 pos,
        uint256 take
    ) private view {
        mapping(address => Score) storage stageScores = scores[stage];
        address data = seg.data;
        if (seg.direct) {
            // take is 1: a direct segment lists one address.
            response[filled] = ScoreResponse(data, stageScores[data].amount, uint64(pos + 1));
            return;
        }
        bytes memory chunk = new bytes(take * 20 + 12);
        uint256 from = 1 + (pos - seg.start) * 20;
        assembly {
            extcodecopy(data, add(chunk, 32), from, mul(take, 20))
        }
        for (uint256 k; k < take; ++k) {
            address addr;
            assembly {
                addr := shr(96, mload(add(add(chunk, 32), mul(k, 20))))
            }
            response[filled + k] = ScoreResponse(addr, stageScores[addr].amount, uint64(pos + k + 1));
        }
    }

    // Checks that stage exists and is open; returns its total.
    // overflow reverts with Panic(0x11), what checked arithmetic raises on a total past u64.
    function overflow() private pure {
        assembly {
            mstore(0, shl(224, 0x4e487b71))
            mstore(4, 0x11)
            revert(0, 0x24)
        }
    }

    function openTotal(uint64 stage) private view returns (uint64) {
        StageInfo memory info = stages[stage];
        if (info.stage == 0) {
            revert StageNotFound(stage);
        }
        if (info.isFinalized) {
            revert StageFinalized(stage);
        }
        return info.totalScore;
    }

    function createStage(uint64 stage) private {
        if (stage == 0) {
            revert ZeroStage();
        }
        if (stages[stage].stage != 0) {
            return;
        }
        // A stage's slot is empty until it is created, so setting .stage is the whole write.
        stages[stage].stage = stage;
        emit CreateStage(stage);
    }

    function readScore(uint64 stage, address addr) private view returns (uint256 slot, bool listed, uint64 amount) {
        Score storage s = scores[stage][addr];
        uint256 v;
        assembly {
            slot := s.slot
            v := sload(slot)
        }
        return (slot, v & 1 != 0, uint64(v >> 8));
    }

    // Stores one address's new score and the stage total, lists the address if new, and
    // emits UpdateScore.
    function writeOne(uint64 stage, address addr, uint256 slot, bool listed, uint64 amount, uint64 total) private {
        assembly {
            sstore(slot, or(1, shl(8, amount)))
        }
        stages[stage].totalScore = total;
        if (!listed) {
            appendDirect(stage, addr);
        }
        emit UpdateScore(addr, stage, amount, total);
    }

    // Appends addr to the stage's list as a direct segment.
    function appendDirect(uint64 stage, address addr) private {
        List memory list = lists[stage];
        uint40 start = list.length;
        segments[stage][list.segmentCount] = Segment(addr, start, start + 1, true);
        lists[stage] = List(start + 1, list.segmentCount + 1);
    }

    // Appends the n addresses packed in list (after HEAD_LEN bytes of room) to the stage's
    // list as data contracts of at most SEGMENT_MAX addresses each.
    function appendCode(uint64 stage, bytes memory addrs, uint256 n) private {
        mapping(uint256 => Segment) storage segs = segments[stage];
        List memory list = lists[stage];
        uint256 start = list.length;
        uint256 count = list.segmentCount;
        uint256 base;
        assembly {
            base := add(addrs, 32)
        }
        for (uint256 done; done < n; ) {
            uint256 m = n - done;
            if (m > SEGMENT_MAX) {
                m = SEGMENT_MAX;
            }
            // The head goes in the HEAD_LEN bytes just before this run of addresses (for a
            // later run they are the tail of the run before, already deployed):
            //   PUSH2 codeLen, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN, then STOP,
            // which returns the STOP byte and the addresses as the new contract's code.
            uint256 headAt = base + done * 20;
            uint256 codeLen = 1 + m * 20;
            address data;
            assembly {
                let head := or(or(shl(96, 0x61), shl(80, codeLen)), shl(8, 0x80600c6000396000f3))
                let word := sub(headAt, 19)
                mstore(word, or(and(mload(word), not(0xffffffffffffffffffffffffff)), head))
                data := create(0, headAt, add(HEAD_LEN, mul(m, 20)))
            }
            require(data != address(0));
            segs[count++] = Segment(data, uint40(start + done), uint40(start + done + m), false);
            done += m;
        }
        lists[stage] = List(uint40(start + n), uint32(count));
    }
}
