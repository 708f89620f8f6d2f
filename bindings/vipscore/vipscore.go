// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package vipscore

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// VipScoreScoreResponse is an auto generated low-level Go binding around an user-defined struct.
type VipScoreScoreResponse struct {
	Addr   common.Address
	Amount uint64
	Index  uint64
}

// VipScoreMetaData contains all meta data concerning the VipScore contract.
var VipScoreMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"initStage_\",\"type\":\"uint64\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AddrsAndAmountsLengthMistmatch\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"deniedAddress\",\"type\":\"address\"}],\"name\":\"PermissionDenied\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"}],\"name\":\"StageFinalized\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"}],\"name\":\"StageNotFound\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroStage\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"}],\"name\":\"CreateStage\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"}],\"name\":\"FinalizeStage\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"score\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"totalScore\",\"type\":\"uint64\"}],\"name\":\"UpdateScore\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"}],\"name\":\"addAllowList\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowList\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"},{\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"amount\",\"type\":\"uint64\"}],\"name\":\"decreaseScore\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"}],\"name\":\"finalizeStage\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"offset\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"limit\",\"type\":\"uint64\"}],\"name\":\"getScores\",\"outputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"amount\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"index\",\"type\":\"uint64\"}],\"internalType\":\"structVipScore.ScoreResponse[]\",\"name\":\"\",\"type\":\"tuple[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"},{\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"amount\",\"type\":\"uint64\"}],\"name\":\"increaseScore\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"initStage\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"}],\"name\":\"removeAllowList\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"scores\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"isIndexed\",\"type\":\"bool\"},{\"internalType\":\"uint64\",\"name\":\"amount\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"name\":\"stages\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"totalScore\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"isFinalized\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"},{\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"amount\",\"type\":\"uint64\"}],\"name\":\"updateScore\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"stage\",\"type\":\"uint64\"},{\"internalType\":\"address[]\",\"name\":\"addrs\",\"type\":\"address[]\"},{\"internalType\":\"uint64[]\",\"name\":\"amounts\",\"type\":\"uint64[]\"}],\"name\":\"updateScores\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "VipScore",
	Bin: "0x608060405234801561000f575f5ffd5b506040516118e73803806118e783398101604081905261002e91610171565b335f908152600360205260408120805460ff1916600117905580546001600160401b0383166001600160401b031990911617905561006b81610071565b5061019e565b806001600160401b03165f0361009a576040516310310b1960e01b815260040160405180910390fd5b6001600160401b038082165f9081526001602052604090205416156100bc5750565b604080516060810182526001600160401b038084168083525f602080850182815285870183815293835260019091529085902093518454915192511515600160801b0260ff60801b1993851668010000000000000000026001600160801b031990931691909416171716179055517fa3b29f5280040d753fd51383140f1a15f5740432a66e6e0543e99119f3c4522e906101669083906001600160401b0391909116815260200190565b60405180910390a150565b5f60208284031215610181575f5ffd5b81516001600160401b0381168114610197575f5ffd5b9392505050565b61173c806101ab5f395ff3fe608060405234801561000f575f5ffd5b50600436106100b1575f3560e01c8063990357e51161006e578063990357e5146101eb5780639da211671461020b578063ca480c301461021e578063d3f942c314610231578063dab73a8614610244578063e109724914610257575f5ffd5b806317abbd50146100b55780632848aeaf146100ca5780633482ec7f1461010157806345a2b96b146101145780635466d83d14610127578063977e940414610183575b5f5ffd5b6100c86100c3366004611431565b610281565b005b6100ec6100d8366004611460565b60036020525f908152604090205460ff1681565b60405190151581526020015b60405180910390f35b6100c861010f366004611479565b610397565b6100c8610122366004611500565b610557565b61016461013536600461157e565b600260209081525f928352604080842090915290825290205460ff81169061010090046001600160401b031682565b6040805192151583526001600160401b039091166020830152016100f8565b6101c3610191366004611431565b60016020525f90815260409020546001600160401b0380821691600160401b810490911690600160801b900460ff1683565b604080516001600160401b0394851681529390921660208401521515908201526060016100f8565b6101fe6101f93660046115af565b61086a565b6040516100f891906115d8565b6100c8610219366004611460565b610b09565b6100c861022c366004611460565b610b5d565b6100c861023f366004611479565b610bae565b6100c8610252366004611479565b610e04565b5f54610269906001600160401b031681565b6040516001600160401b0390911681526020016100f8565b335f9081526003602052604090205460ff166102b7576040516317f323f360e01b81523360048201526024015b60405180910390fd5b6001600160401b038082165f908152600160205260408120805490921690036102fe57604051636271a68560e01b81526001600160401b03831660048201526024016102ae565b8054600160801b900460ff161561033357604051635699f3ef60e01b81526001600160401b03831660048201526024016102ae565b805460ff60801b1916600160801b1781556040516001600160401b03831681527fcadfe6a64e10152f3376a443fde9c4663759d6f8e9afc95be75d74cbe5e25f9c9060200160405180910390a161039361038e83600161165c565b610eb4565b5050565b335f9081526003602052604090205460ff166103c8576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b03821615610552575f816103e285610fb8565b6103ec9190611681565b6001600160401b038086165f9081526002602090815260408083206001600160a01b0389168452825280832081518083019092525460ff81161515825261010090049093169083018190529293509091610447908590611681565b60408051808201825260018082526001600160401b0384811660208085019182528c83165f818152600283528781206001600160a01b038f168252835287812096518754945168ffffffffffffffffff1990951690151568ffffffffffffffff0019161761010094861694909402939093179095559381529190925291909120805467ffffffffffffffff60401b1916600160401b9287169290920291909117905582519091506104fc576104fc8686611069565b604080516001600160401b03838116825285811660208301528816916001600160a01b038816917faa223ecc7f67d3014d35d9d5e419dd09b7e4b2ae2d427d33b1995b38ecfefe8d910160405180910390a35050505b505050565b335f9081526003602052604090205460ff16610588576040516317f323f360e01b81523360048201526024016102ae565b8281146105a85760405163388283af60e11b815260040160405180910390fd5b5f6105b286610fb8565b6001600160401b0387165f90815260026020526040812091925085906105d98260146116a0565b6105e5600c60016116b7565b6105ef91906116b7565b6105fa90600c6116b7565b6001600160401b03811115610611576106116116ca565b6040519080825280601f01601f19166020018201604052801561063b576020820181803683370190505b509050602d81015f805b84811015610812575f8b8b83818110610660576106606116de565b90506020020160208101906106759190611460565b90506001600160a01b03811615610809575f8a8a84818110610699576106996116de565b90506020020160208101906106ae9190611431565b6001600160a01b0383165f90815260208a815260409182902082518084019093525460ff811615158084526101009091046001600160401b0316918301919091529192509061070a578260601b86526014860195508460010194505b8181602001518b030199506040518060400160405280600115158152602001836001600160401b0316815250895f856001600160a01b03166001600160a01b031681526020019081526020015f205f820151815f015f6101000a81548160ff0219169083151502179055506020820151815f0160016101000a8154816001600160401b0302191690836001600160401b031602179055509050508e6001600160401b0316836001600160a01b03167faa223ecc7f67d3014d35d9d5e419dd09b7e4b2ae2d427d33b1995b38ecfefe8d848d6040516107fe9291906001600160401b0392831681529116602082015260400190565b60405180910390a350505b50600101610645565b506001600160401b03808c165f9081526001602052604090208054918816600160401b0267ffffffffffffffff60401b19909216919091179055801561085d5761085d8b84836110e2565b5050505050505050505050565b60605f826001600160401b03166001600160401b0381111561088e5761088e6116ca565b6040519080825280602002602001820160405280156108d757816020015b604080516060810182525f80825260208083018290529282015282525f199092019101816108ac5790505b506001600160401b0386165f9081526004602052604081208054929350919081900361090857829350505050610b02565b5f826109156001846116f2565b81548110610925576109256116de565b5f91825260209091200154600160d01b900465ffffffffffff1690506001600160401b0387168111158061096057506001600160401b038616155b156109715783945050505050610b02565b5f8061097e6001856116f2565b90505b808210156109fa575f600261099683856116b7565b6109a09190611705565b9050896001600160401b03168682815481106109be576109be6116de565b5f91825260209091200154600160d01b900465ffffffffffff1611156109e6578091506109f4565b6109f18160016116b7565b92505b50610981565b6001600160401b0389165f5b896001600160401b031681108015610a1d57508482105b15610af7575f878581548110610a3557610a356116de565b5f91825260208083206040805160608101825291909301546001600160a01b038116825265ffffffffffff600160a01b8204811693830193909352600160d01b90049091169181018290529250610a8d9085906116f2565b9050610aa2836001600160401b038e166116f2565b811115610abf57610abc836001600160401b038e166116f2565b90505b610acd8e8b858588866112cc565b610ad781846116b7565b9250610ae381856116b7565b9350610aee86611724565b95505050610a06565b509596505050505050505b9392505050565b335f9081526003602052604090205460ff16610b3a576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b03165f908152600360205260409020805460ff19166001179055565b335f9081526003602052604090205460ff16610b8e576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b03165f908152600360205260409020805460ff19169055565b335f9081526003602052604090205460ff16610bdf576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b03821615610552575f610bf884610fb8565b90505f60025f866001600160401b03166001600160401b031681526020019081526020015f205f856001600160a01b03166001600160a01b031681526020019081526020015f206040518060400160405290815f82015f9054906101000a900460ff161515151581526020015f820160019054906101000a90046001600160401b03166001600160401b03166001600160401b031681525050905082816020015183030191506040518060400160405280600115158152602001846001600160401b031681525060025f876001600160401b03166001600160401b031681526020019081526020015f205f866001600160a01b03166001600160a01b031681526020019081526020015f205f820151815f015f6101000a81548160ff0219169083151502179055506020820151815f0160016101000a8154816001600160401b0302191690836001600160401b031602179055509050508160015f876001600160401b03166001600160401b031681526020019081526020015f205f0160086101000a8154816001600160401b0302191690836001600160401b03160217905550805f0151610dab57610dab8585611069565b604080516001600160401b03858116825284811660208301528716916001600160a01b038716917faa223ecc7f67d3014d35d9d5e419dd09b7e4b2ae2d427d33b1995b38ecfefe8d910160405180910390a35050505050565b335f9081526003602052604090205460ff16610e35576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b03821615610552575f81610e4f85610fb8565b610e59919061165c565b6001600160401b038086165f9081526002602090815260408083206001600160a01b0389168452825280832081518083019092525460ff8116151582526101009004909316908301819052929350909161044790859061165c565b806001600160401b03165f03610edd576040516310310b1960e01b815260040160405180910390fd5b6001600160401b038082165f908152600160205260409020541615610eff5750565b604080516060810182526001600160401b038084168083525f602080850182815285870183815293835260019091529085902093518454915192511515600160801b0260ff60801b19938516600160401b026fffffffffffffffffffffffffffffffff1990931691909416171716179055517fa3b29f5280040d753fd51383140f1a15f5740432a66e6e0543e99119f3c4522e90610fad9083906001600160401b0391909116815260200190565b60405180910390a150565b6001600160401b038181165f90815260016020908152604080832081516060810183529054808616808352600160401b820490961693820193909352600160801b90920460ff161515908201529091820361103157604051636271a68560e01b81526001600160401b03841660048201526024016102ae565b80604001511561105f57604051635699f3ef60e01b81526001600160401b03841660048201526024016102ae565b6020015192915050565b5f611076600c60016116b7565b6110819060146116b7565b61108c90600c6116b7565b6001600160401b038111156110a3576110a36116ca565b6040519080825280601f01601f1916602001820160405280156110cd576020820181803683370190505b50606083901b602d8201529050610552838260015b6001600160401b0383165f9081526004602052604081208054909190156111425781548290611113906001906116f2565b81548110611123576111236116de565b5f91825260209091200154600160d01b900465ffffffffffff16611144565b5f5b65ffffffffffff169050602084015f5b848110156112c3575f61116782876116f2565b90506104cc81111561117857506104cc5b5f6111848360146116a0565b61118e90856116b7565b90505f61119c8360146116a0565b6111a79060016116b7565b601219830180516cffffffffffffffffffffffffff1916605083901b176c61000080600c6000396000f30017905290505f600d60148502018382f090506001600160a01b0381166111f6575f5ffd5b876040518060600160405280836001600160a01b03168152602001878a61121d91906116b7565b65ffffffffffff16815260200186611235898c6116b7565b61123f91906116b7565b65ffffffffffff90811690915282546001810184555f938452602093849020835191018054948401516040909401518316600160d01b026001600160d01b0394909316600160a01b026001600160d01b03199095166001600160a01b039092169190911793909317919091161790556112b884866116b7565b945050505050611154565b50505050505050565b6001600160401b0386165f908152600260205260408120906112ef8360146116a0565b6112fa90600c6116b7565b6001600160401b03811115611311576113116116ca565b6040519080825280601f01601f19166020018201604052801561133b576020820181803683370190505b5085516020870151919250905f9061135b9065ffffffffffff16876116f2565b6113669060146116a0565b6113719060016116b7565b9050601485028160208501843c5f5b8581101561085d57602060148202850181015160408051606080820183529290921c8083525f8181528985528290205461010090046001600160401b03169383019390935281016113d1848b6116b7565b6113dc9060016116b7565b6001600160401b031690528b6113f2848d6116b7565b81518110611402576114026116de565b602090810291909101015250600101611380565b80356001600160401b038116811461142c575f5ffd5b919050565b5f60208284031215611441575f5ffd5b610b0282611416565b80356001600160a01b038116811461142c575f5ffd5b5f60208284031215611470575f5ffd5b610b028261144a565b5f5f5f6060848603121561148b575f5ffd5b61149484611416565b92506114a26020850161144a565b91506114b060408501611416565b90509250925092565b5f5f83601f8401126114c9575f5ffd5b5081356001600160401b038111156114df575f5ffd5b6020830191508360208260051b85010111156114f9575f5ffd5b9250929050565b5f5f5f5f5f60608688031215611514575f5ffd5b61151d86611416565b945060208601356001600160401b03811115611537575f5ffd5b611543888289016114b9565b90955093505060408601356001600160401b03811115611561575f5ffd5b61156d888289016114b9565b969995985093965092949392505050565b5f5f6040838503121561158f575f5ffd5b61159883611416565b91506115a66020840161144a565b90509250929050565b5f5f5f606084860312156115c1575f5ffd5b6115ca84611416565b92506114a260208501611416565b602080825282518282018190525f918401906040840190835b8181101561163d57835180516001600160a01b031684526020808201516001600160401b03908116828701526040928301511691850191909152909301926060909201916001016115f1565b509095945050505050565b634e487b7160e01b5f52601160045260245ffd5b6001600160401b03818116838216019081111561167b5761167b611648565b92915050565b6001600160401b03828116828216039081111561167b5761167b611648565b808202811582820484141761167b5761167b611648565b8082018082111561167b5761167b611648565b634e487b7160e01b5f52604160045260245ffd5b634e487b7160e01b5f52603260045260245ffd5b8181038181111561167b5761167b611648565b5f8261171f57634e487b7160e01b5f52601260045260245ffd5b500490565b5f6001820161173557611735611648565b506001019056",
}

// VipScore is an auto generated Go binding around an Ethereum contract.
type VipScore struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *VipScore) GetABI() abi.ABI {
	return c.abi
}

// NewVipScore creates a new instance of VipScore.
func NewVipScore() *VipScore {
	parsed, err := VipScoreMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &VipScore{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *VipScore) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(uint64 initStage_) returns()
func (vipScore *VipScore) PackConstructor(initStage_ uint64) []byte {
	enc, err := vipScore.abi.Pack("", initStage_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackAddAllowList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9da21167.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function addAllowList(address addr) returns()
func (vipScore *VipScore) PackAddAllowList(addr common.Address) []byte {
	enc, err := vipScore.abi.Pack("addAllowList", addr)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAddAllowList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9da21167.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function addAllowList(address addr) returns()
func (vipScore *VipScore) TryPackAddAllowList(addr common.Address) ([]byte, error) {
	return vipScore.abi.Pack("addAllowList", addr)
}

// PackAllowList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2848aeaf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowList(address ) view returns(bool)
func (vipScore *VipScore) PackAllowList(arg0 common.Address) []byte {
	enc, err := vipScore.abi.Pack("allowList", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2848aeaf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowList(address ) view returns(bool)
func (vipScore *VipScore) TryPackAllowList(arg0 common.Address) ([]byte, error) {
	return vipScore.abi.Pack("allowList", arg0)
}

// UnpackAllowList is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2848aeaf.
//
// Solidity: function allowList(address ) view returns(bool)
func (vipScore *VipScore) UnpackAllowList(data []byte) (bool, error) {
	out, err := vipScore.abi.Unpack("allowList", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackDecreaseScore is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3482ec7f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decreaseScore(uint64 stage, address addr, uint64 amount) returns()
func (vipScore *VipScore) PackDecreaseScore(stage uint64, addr common.Address, amount uint64) []byte {
	enc, err := vipScore.abi.Pack("decreaseScore", stage, addr, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecreaseScore is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3482ec7f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decreaseScore(uint64 stage, address addr, uint64 amount) returns()
func (vipScore *VipScore) TryPackDecreaseScore(stage uint64, addr common.Address, amount uint64) ([]byte, error) {
	return vipScore.abi.Pack("decreaseScore", stage, addr, amount)
}

// PackFinalizeStage is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x17abbd50.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function finalizeStage(uint64 stage) returns()
func (vipScore *VipScore) PackFinalizeStage(stage uint64) []byte {
	enc, err := vipScore.abi.Pack("finalizeStage", stage)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFinalizeStage is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x17abbd50.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function finalizeStage(uint64 stage) returns()
func (vipScore *VipScore) TryPackFinalizeStage(stage uint64) ([]byte, error) {
	return vipScore.abi.Pack("finalizeStage", stage)
}

// PackGetScores is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x990357e5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getScores(uint64 stage, uint64 offset, uint64 limit) view returns((address,uint64,uint64)[])
func (vipScore *VipScore) PackGetScores(stage uint64, offset uint64, limit uint64) []byte {
	enc, err := vipScore.abi.Pack("getScores", stage, offset, limit)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetScores is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x990357e5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getScores(uint64 stage, uint64 offset, uint64 limit) view returns((address,uint64,uint64)[])
func (vipScore *VipScore) TryPackGetScores(stage uint64, offset uint64, limit uint64) ([]byte, error) {
	return vipScore.abi.Pack("getScores", stage, offset, limit)
}

// UnpackGetScores is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x990357e5.
//
// Solidity: function getScores(uint64 stage, uint64 offset, uint64 limit) view returns((address,uint64,uint64)[])
func (vipScore *VipScore) UnpackGetScores(data []byte) ([]VipScoreScoreResponse, error) {
	out, err := vipScore.abi.Unpack("getScores", data)
	if err != nil {
		return *new([]VipScoreScoreResponse), err
	}
	out0 := *abi.ConvertType(out[0], new([]VipScoreScoreResponse)).(*[]VipScoreScoreResponse)
	return out0, nil
}

// PackIncreaseScore is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdab73a86.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function increaseScore(uint64 stage, address addr, uint64 amount) returns()
func (vipScore *VipScore) PackIncreaseScore(stage uint64, addr common.Address, amount uint64) []byte {
	enc, err := vipScore.abi.Pack("increaseScore", stage, addr, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIncreaseScore is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdab73a86.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function increaseScore(uint64 stage, address addr, uint64 amount) returns()
func (vipScore *VipScore) TryPackIncreaseScore(stage uint64, addr common.Address, amount uint64) ([]byte, error) {
	return vipScore.abi.Pack("increaseScore", stage, addr, amount)
}

// PackInitStage is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe1097249.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function initStage() view returns(uint64)
func (vipScore *VipScore) PackInitStage() []byte {
	enc, err := vipScore.abi.Pack("initStage")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInitStage is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe1097249.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function initStage() view returns(uint64)
func (vipScore *VipScore) TryPackInitStage() ([]byte, error) {
	return vipScore.abi.Pack("initStage")
}

// UnpackInitStage is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe1097249.
//
// Solidity: function initStage() view returns(uint64)
func (vipScore *VipScore) UnpackInitStage(data []byte) (uint64, error) {
	out, err := vipScore.abi.Unpack("initStage", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackRemoveAllowList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xca480c30.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function removeAllowList(address addr) returns()
func (vipScore *VipScore) PackRemoveAllowList(addr common.Address) []byte {
	enc, err := vipScore.abi.Pack("removeAllowList", addr)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRemoveAllowList is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xca480c30.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function removeAllowList(address addr) returns()
func (vipScore *VipScore) TryPackRemoveAllowList(addr common.Address) ([]byte, error) {
	return vipScore.abi.Pack("removeAllowList", addr)
}

// PackScores is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5466d83d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function scores(uint64 , address ) view returns(bool isIndexed, uint64 amount)
func (vipScore *VipScore) PackScores(arg0 uint64, arg1 common.Address) []byte {
	enc, err := vipScore.abi.Pack("scores", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackScores is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5466d83d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function scores(uint64 , address ) view returns(bool isIndexed, uint64 amount)
func (vipScore *VipScore) TryPackScores(arg0 uint64, arg1 common.Address) ([]byte, error) {
	return vipScore.abi.Pack("scores", arg0, arg1)
}

// ScoresOutput serves as a container for the return parameters of contract
// method Scores.
type ScoresOutput struct {
	IsIndexed bool
	Amount    uint64
}

// UnpackScores is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5466d83d.
//
// Solidity: function scores(uint64 , address ) view returns(bool isIndexed, uint64 amount)
func (vipScore *VipScore) UnpackScores(data []byte) (ScoresOutput, error) {
	out, err := vipScore.abi.Unpack("scores", data)
	outstruct := new(ScoresOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.IsIndexed = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Amount = *abi.ConvertType(out[1], new(uint64)).(*uint64)
	return *outstruct, nil
}

// PackStages is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x977e9404.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function stages(uint64 ) view returns(uint64 stage, uint64 totalScore, bool isFinalized)
func (vipScore *VipScore) PackStages(arg0 uint64) []byte {
	enc, err := vipScore.abi.Pack("stages", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackStages is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x977e9404.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function stages(uint64 ) view returns(uint64 stage, uint64 totalScore, bool isFinalized)
func (vipScore *VipScore) TryPackStages(arg0 uint64) ([]byte, error) {
	return vipScore.abi.Pack("stages", arg0)
}

// StagesOutput serves as a container for the return parameters of contract
// method Stages.
type StagesOutput struct {
	Stage       uint64
	TotalScore  uint64
	IsFinalized bool
}

// UnpackStages is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x977e9404.
//
// Solidity: function stages(uint64 ) view returns(uint64 stage, uint64 totalScore, bool isFinalized)
func (vipScore *VipScore) UnpackStages(data []byte) (StagesOutput, error) {
	out, err := vipScore.abi.Unpack("stages", data)
	outstruct := new(StagesOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Stage = *abi.ConvertType(out[0], new(uint64)).(*uint64)
	outstruct.TotalScore = *abi.ConvertType(out[1], new(uint64)).(*uint64)
	outstruct.IsFinalized = *abi.ConvertType(out[2], new(bool)).(*bool)
	return *outstruct, nil
}

// PackUpdateScore is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd3f942c3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function updateScore(uint64 stage, address addr, uint64 amount) returns()
func (vipScore *VipScore) PackUpdateScore(stage uint64, addr common.Address, amount uint64) []byte {
	enc, err := vipScore.abi.Pack("updateScore", stage, addr, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUpdateScore is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd3f942c3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function updateScore(uint64 stage, address addr, uint64 amount) returns()
func (vipScore *VipScore) TryPackUpdateScore(stage uint64, addr common.Address, amount uint64) ([]byte, error) {
	return vipScore.abi.Pack("updateScore", stage, addr, amount)
}

// PackUpdateScores is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x45a2b96b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function updateScores(uint64 stage, address[] addrs, uint64[] amounts) returns()
func (vipScore *VipScore) PackUpdateScores(stage uint64, addrs []common.Address, amounts []uint64) []byte {
	enc, err := vipScore.abi.Pack("updateScores", stage, addrs, amounts)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUpdateScores is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x45a2b96b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function updateScores(uint64 stage, address[] addrs, uint64[] amounts) returns()
func (vipScore *VipScore) TryPackUpdateScores(stage uint64, addrs []common.Address, amounts []uint64) ([]byte, error) {
	return vipScore.abi.Pack("updateScores", stage, addrs, amounts)
}

// VipScoreCreateStage represents a CreateStage event raised by the VipScore contract.
type VipScoreCreateStage struct {
	Stage uint64
	Raw   *types.Log // Blockchain specific contextual infos
}

const VipScoreCreateStageEventName = "CreateStage"

// ContractEventName returns the user-defined event name.
func (VipScoreCreateStage) ContractEventName() string {
	return VipScoreCreateStageEventName
}

// UnpackCreateStageEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event CreateStage(uint64 stage)
func (vipScore *VipScore) UnpackCreateStageEvent(log *types.Log) (*VipScoreCreateStage, error) {
	event := "CreateStage"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != vipScore.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(VipScoreCreateStage)
	if len(log.Data) > 0 {
		if err := vipScore.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range vipScore.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// VipScoreFinalizeStage represents a FinalizeStage event raised by the VipScore contract.
type VipScoreFinalizeStage struct {
	Stage uint64
	Raw   *types.Log // Blockchain specific contextual infos
}

const VipScoreFinalizeStageEventName = "FinalizeStage"

// ContractEventName returns the user-defined event name.
func (VipScoreFinalizeStage) ContractEventName() string {
	return VipScoreFinalizeStageEventName
}

// UnpackFinalizeStageEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event FinalizeStage(uint64 stage)
func (vipScore *VipScore) UnpackFinalizeStageEvent(log *types.Log) (*VipScoreFinalizeStage, error) {
	event := "FinalizeStage"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != vipScore.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(VipScoreFinalizeStage)
	if len(log.Data) > 0 {
		if err := vipScore.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range vipScore.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// VipScoreUpdateScore represents a UpdateScore event raised by the VipScore contract.
type VipScoreUpdateScore struct {
	Addr       common.Address
	Stage      uint64
	Score      uint64
	TotalScore uint64
	Raw        *types.Log // Blockchain specific contextual infos
}

const VipScoreUpdateScoreEventName = "UpdateScore"

// ContractEventName returns the user-defined event name.
func (VipScoreUpdateScore) ContractEventName() string {
	return VipScoreUpdateScoreEventName
}

// UnpackUpdateScoreEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event UpdateScore(address indexed addr, uint64 indexed stage, uint64 score, uint64 totalScore)
func (vipScore *VipScore) UnpackUpdateScoreEvent(log *types.Log) (*VipScoreUpdateScore, error) {
	event := "UpdateScore"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != vipScore.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(VipScoreUpdateScore)
	if len(log.Data) > 0 {
		if err := vipScore.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range vipScore.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (vipScore *VipScore) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], vipScore.abi.Errors["AddrsAndAmountsLengthMistmatch"].ID.Bytes()[:4]) {
		return vipScore.UnpackAddrsAndAmountsLengthMistmatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], vipScore.abi.Errors["PermissionDenied"].ID.Bytes()[:4]) {
		return vipScore.UnpackPermissionDeniedError(raw[4:])
	}
	if bytes.Equal(raw[:4], vipScore.abi.Errors["StageFinalized"].ID.Bytes()[:4]) {
		return vipScore.UnpackStageFinalizedError(raw[4:])
	}
	if bytes.Equal(raw[:4], vipScore.abi.Errors["StageNotFound"].ID.Bytes()[:4]) {
		return vipScore.UnpackStageNotFoundError(raw[4:])
	}
	if bytes.Equal(raw[:4], vipScore.abi.Errors["ZeroStage"].ID.Bytes()[:4]) {
		return vipScore.UnpackZeroStageError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// VipScoreAddrsAndAmountsLengthMistmatch represents a AddrsAndAmountsLengthMistmatch error raised by the VipScore contract.
type VipScoreAddrsAndAmountsLengthMistmatch struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AddrsAndAmountsLengthMistmatch()
func VipScoreAddrsAndAmountsLengthMistmatchErrorID() common.Hash {
	return common.HexToHash("0x7105075e0a045c3bc1e54bb80f4c32c976071b00af44698d23b08f9beb14ec61")
}

// UnpackAddrsAndAmountsLengthMistmatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AddrsAndAmountsLengthMistmatch()
func (vipScore *VipScore) UnpackAddrsAndAmountsLengthMistmatchError(raw []byte) (*VipScoreAddrsAndAmountsLengthMistmatch, error) {
	out := new(VipScoreAddrsAndAmountsLengthMistmatch)
	if err := vipScore.abi.UnpackIntoInterface(out, "AddrsAndAmountsLengthMistmatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// VipScorePermissionDenied represents a PermissionDenied error raised by the VipScore contract.
type VipScorePermissionDenied struct {
	DeniedAddress common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error PermissionDenied(address deniedAddress)
func VipScorePermissionDeniedErrorID() common.Hash {
	return common.HexToHash("0x17f323f31995eb70c98872103e9a84466a058ba3bd11d6edea7971fd658708c4")
}

// UnpackPermissionDeniedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error PermissionDenied(address deniedAddress)
func (vipScore *VipScore) UnpackPermissionDeniedError(raw []byte) (*VipScorePermissionDenied, error) {
	out := new(VipScorePermissionDenied)
	if err := vipScore.abi.UnpackIntoInterface(out, "PermissionDenied", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// VipScoreStageFinalized represents a StageFinalized error raised by the VipScore contract.
type VipScoreStageFinalized struct {
	Stage uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StageFinalized(uint64 stage)
func VipScoreStageFinalizedErrorID() common.Hash {
	return common.HexToHash("0x5699f3ef4a892150030a2ee3f43d5b0c790562787fef665c1a4b4818be427705")
}

// UnpackStageFinalizedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StageFinalized(uint64 stage)
func (vipScore *VipScore) UnpackStageFinalizedError(raw []byte) (*VipScoreStageFinalized, error) {
	out := new(VipScoreStageFinalized)
	if err := vipScore.abi.UnpackIntoInterface(out, "StageFinalized", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// VipScoreStageNotFound represents a StageNotFound error raised by the VipScore contract.
type VipScoreStageNotFound struct {
	Stage uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StageNotFound(uint64 stage)
func VipScoreStageNotFoundErrorID() common.Hash {
	return common.HexToHash("0x6271a685cb974bab0d3e7e2864f65be6e07619f60d0df7072f27aa74f35f1aa9")
}

// UnpackStageNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StageNotFound(uint64 stage)
func (vipScore *VipScore) UnpackStageNotFoundError(raw []byte) (*VipScoreStageNotFound, error) {
	out := new(VipScoreStageNotFound)
	if err := vipScore.abi.UnpackIntoInterface(out, "StageNotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// VipScoreZeroStage represents a ZeroStage error raised by the VipScore contract.
type VipScoreZeroStage struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroStage()
func VipScoreZeroStageErrorID() common.Hash {
	return common.HexToHash("0x10310b199b689bbfa6bc8caefbd4689f4936d052920f139a676b4e84a41f1e8b")
}

// UnpackZeroStageError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroStage()
func (vipScore *VipScore) UnpackZeroStageError(raw []byte) (*VipScoreZeroStage, error) {
	out := new(VipScoreZeroStage)
	if err := vipScore.abi.UnpackIntoInterface(out, "ZeroStage", raw); err != nil {
		return nil, err
	}
	return out, nil
}
