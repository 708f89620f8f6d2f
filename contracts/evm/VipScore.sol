// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

// The external interface (functions, events, errors) is the official VIP scoring contract's,
// selector for selector. Storage differs: one slot per (stage, address) score, the stage's
// total written once per call, and the per-stage address list kept in the code of small
// data contracts (written once, read with EXTCODECOPY) instead of one storage slot per
// address. That is what makes a new address cost ~29k gas instead of ~51k.

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

    struct Score {
        bool isIndexed;
        uint64 amount;
    }

    struct ScoreResponse {
        address addr;
        uint64 amount;
        uint64 index;
    }

    // A run of the stage's address list: the data contract holding it (STOP, then 20 bytes
    // per address) and the list positions [start, end) it covers. One slot.
    struct Segment {
        address data;
        uint48 start;
        uint48 end;
    }

    // Addresses per data contract: (24,576-byte code limit - 1 byte STOP) / 20.
    uint256 private constant SEGMENT_MAX = 1228;
    // Init code that returns the code appended to it: PUSH2 len, DUP1, PUSH1 12, PUSH1 0,
    // CODECOPY, PUSH1 0, RETURN.
    uint256 private constant INIT_LEN = 12;

    uint64 public initStage;
    mapping(uint64 => StageInfo) public stages;
    mapping(uint64 => mapping(address => Score)) public scores;
    mapping(address => bool) public allowList;
    mapping(uint64 => Segment[]) private segments;

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
        if (info.stage == 0) {
            revert StageNotFound(stage);
        }
        // Finalizing twice is refused rather than re-announced: a stage closes once.
        if (info.isFinalized) {
            revert StageFinalized(stage);
        }
        info.isFinalized = true;
        emit FinalizeStage(stage);
        createStage(stage + 1);
    }

    function addAllowList(address addr) external onlyAllowed {
        allowList[addr] = true;
    }

    function removeAllowList(address addr) external onlyAllowed {
        delete allowList[addr];
    }

    function updateScore(uint64 stage, address addr, uint64 amount) external onlyAllowed {
        if (addr == address(0)) {
            return;
        }
        uint64 total = openTotal(stage);
        Score memory old = scores[stage][addr];
        unchecked {
            total = total - old.amount + amount;
        }
        scores[stage][addr] = Score(true, amount);
        stages[stage].totalScore = total;
        if (!old.isIndexed) {
            appendOne(stage, addr);
        }
        emit UpdateScore(addr, stage, amount, total);
    }

    function increaseScore(uint64 stage, address addr, uint64 amount) external onlyAllowed {
        if (addr == address(0)) {
            return;
        }
        uint64 total = openTotal(stage) + amount;
        Score memory old = scores[stage][addr];
        uint64 score = old.amount + amount;
        scores[stage][addr] = Score(true, score);
        stages[stage].totalScore = total;
        if (!old.isIndexed) {
            appendOne(stage, addr);
        }
        emit UpdateScore(addr, stage, score, total);
    }

    function decreaseScore(uint64 stage, address addr, uint64 amount) external onlyAllowed {
        if (addr == address(0)) {
            return;
        }
        uint64 total = openTotal(stage) - amount;
        Score memory old = scores[stage][addr];
        uint64 score = old.amount - amount;
        scores[stage][addr] = Score(true, score);
        stages[stage].totalScore = total;
        if (!old.isIndexed) {
            appendOne(stage, addr);
        }
        emit UpdateScore(addr, stage, score, total);
    }

    function updateScores(uint64 stage, address[] calldata addrs, uint64[] calldata amounts) external onlyAllowed {
        if (addrs.length != amounts.length) {
            revert AddrsAndAmountsLengthMistmatch();
        }
        uint64 total = openTotal(stage);
        mapping(address => Score) storage stageScores = scores[stage];
        uint256 n = addrs.length;
        // New addresses are gathered in memory right after room for the data contract's
        // init code, so the list is deployed without another copy.
        bytes memory buf = new bytes(INIT_LEN + 1 + n * 20 + 12);
        uint256 cursor;
        assembly {
            cursor := add(buf, add(32, add(INIT_LEN, 1)))
        }
        uint256 added;
        for (uint256 i; i < n; ) {
            address addr = addrs[i];
            if (addr != address(0)) {
                uint64 amount = amounts[i];
                Score memory old = stageScores[addr];
                if (!old.isIndexed) {
                    assembly {
                        mstore(cursor, shl(96, addr))
                        cursor := add(cursor, 20)
                    }
                    unchecked {
                        ++added;
                    }
                }
                unchecked {
                    total = total - old.amount + amount;
                }
                stageScores[addr] = Score(true, amount);
                emit UpdateScore(addr, stage, amount, total);
            }
            unchecked {
                ++i;
            }
        }
        stages[stage].totalScore = total;
        if (added != 0) {
            appendList(stage, buf, added);
        }
    }

    function getScores(uint64 stage, uint64 offset, uint64 limit) public view returns (ScoreResponse[] memory) {
        ScoreResponse[] memory response = new ScoreResponse[](limit);
        Segment[] storage segs = segments[stage];
        uint256 count = segs.length;
        if (count == 0) {
            return response;
        }
        uint256 length = segs[count - 1].end;
        if (offset >= length || limit == 0) {
            return response;
        }
        // The first segment whose end lies past offset.
        uint256 lo;
        uint256 hi = count - 1;
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

    // readSegment fills response[filled:filled+take] from seg, starting at list position pos.
    function readSegment(
        uint64 stage,
        ScoreResponse[] memory response,
        uint256 filled,
        Segment memory seg,
        uint256 pos,
        uint256 take
    ) private view {
        mapping(address => Score) storage stageScores = scores[stage];
        bytes memory chunk = new bytes(take * 20 + 12);
        address data = seg.data;
        uint256 from = 1 + (pos - seg.start) * 20;
        assembly {
            extcodecopy(data, add(chunk, 32), from, mul(take, 20))
        }
        for (uint256 k; k < take; ) {
            address addr;
            assembly {
                addr := shr(96, mload(add(add(chunk, 32), mul(k, 20))))
            }
            response[filled + k] = ScoreResponse(addr, stageScores[addr].amount, uint64(pos + k + 1));
            unchecked {
                ++k;
            }
        }
    }

    // openTotal checks that stage exists and is open, and returns its total.
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
        stages[stage] = StageInfo(stage, 0, false);
        emit CreateStage(stage);
    }

    function appendOne(uint64 stage, address addr) private {
        bytes memory buf = new bytes(INIT_LEN + 1 + 20 + 12);
        assembly {
            mstore(add(buf, add(32, add(INIT_LEN, 1))), shl(96, addr))
        }
        appendList(stage, buf, 1);
    }

    // appendList deploys the n addresses in buf (after INIT_LEN + 1 bytes of room) as data
    // contracts of at most SEGMENT_MAX addresses each, and records their segments.
    function appendList(uint64 stage, bytes memory buf, uint256 n) private {
        Segment[] storage segs = segments[stage];
        uint256 start = segs.length == 0 ? 0 : segs[segs.length - 1].end;
        uint256 base;
        assembly {
            base := add(buf, 32)
        }
        for (uint256 done; done < n; ) {
            uint256 m = n - done;
            if (m > SEGMENT_MAX) {
                m = SEGMENT_MAX;
            }
            // Write the init code and the STOP byte just before this run of addresses; the
            // bytes it overwrites belong to the run before, already deployed.
            uint256 codeAt = base + done * 20;
            uint256 codeLen = 1 + m * 20;
            address data;
            assembly {
                // 12 init bytes + STOP (13 bytes), right-aligned in a word ending at codeAt+13.
                let head := or(or(shl(96, 0x61), shl(80, codeLen)), shl(8, 0x80600c6000396000f3))
                let keep := and(mload(sub(codeAt, 19)), not(0xffffffffffffffffffffffffff))
                mstore(sub(codeAt, 19), or(keep, head))
                data := create(0, codeAt, add(13, mul(m, 20)))
            }
            require(data != address(0));
            segs.push(Segment(data, uint48(start + done), uint48(start + done + m)));
            done += m;
        }
    }
}
