// SPDX-License-Identifier: MIT
pragma solidity ^0.8.25;

// IERC20 only names the functions whose selectors make up the ERC-20 interface id.
interface IERC20 {
    function totalSupply() external view returns (uint256);
    function balanceOf(address account) external view returns (uint256);
    function transfer(address recipient, uint256 amount) external returns (bool);
    function allowance(address owner, address spender) external view returns (uint256);
    function approve(address spender, uint256 amount) external returns (bool);
    function transferFrom(address sender, address recipient, uint256 amount) external returns (bool);
}

// FeeToken is the fee denom of the local EVM rollup. As on minievm, the fee coin is an
// ERC-20 whose balances the chain itself moves (fees, deposits, withdrawals) through the
// sudo calls, which only the chain's reserved address may make.
contract FeeToken {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;

    // The node sends its sudo calls from this reserved address; no key controls it.
    address constant CHAIN_ADDRESS = 0x0000000000000000000000000000000000000001;

    modifier onlyChain() {
        require(msg.sender == CHAIN_ADDRESS, "ERC20: caller is not the chain");
        _;
    }

    constructor(string memory _name, string memory _symbol, uint8 _decimals) {
        name = _name;
        symbol = _symbol;
        decimals = _decimals;
    }

    function _transfer(address sender, address recipient, uint256 amount) internal {
        uint256 have = balanceOf[sender];
        require(have >= amount, "ERC20: transfer amount exceeds balance");
        // Cannot wrap: the require bounds the subtraction, and totalSupply (checked in
        // _mint) bounds every balance.
        unchecked {
            balanceOf[sender] = have - amount;
            balanceOf[recipient] += amount;
        }
        emit Transfer(sender, recipient, amount);
    }

    function _mint(address to, uint256 amount) internal {
        totalSupply += amount; // checked: the supply must not wrap
        unchecked {
            balanceOf[to] += amount; // a balance never exceeds totalSupply
        }
        emit Transfer(address(0), to, amount);
    }

    function _burn(address from, uint256 amount) internal {
        uint256 have = balanceOf[from];
        require(have >= amount, "ERC20: burn amount exceeds balance");
        // Cannot wrap: amount <= the balance <= totalSupply.
        unchecked {
            balanceOf[from] = have - amount;
            totalSupply -= amount;
        }
        emit Transfer(from, address(0), amount);
    }

    function transfer(address recipient, uint256 amount) external returns (bool) {
        _transfer(msg.sender, recipient, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address sender, address recipient, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[sender][msg.sender];
        require(allowed >= amount, "ERC20: transfer amount exceeds allowance");
        unchecked {
            allowance[sender][msg.sender] = allowed - amount; // bounded by the require
        }
        _transfer(sender, recipient, amount);
        return true;
    }

    function sudoTransfer(address sender, address recipient, uint256 amount) external onlyChain {
        _transfer(sender, recipient, amount);
    }

    function sudoMint(address to, uint256 amount) external onlyChain {
        _mint(to, amount);
    }

    function sudoBurn(address from, uint256 amount) external onlyChain {
        _burn(from, amount);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == type(IERC20).interfaceId; // ERC-165, ERC-20
    }
}
