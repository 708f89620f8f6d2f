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
	Bin: "0x608060405234801561000f575f5ffd5b5060405161181038038061181083398101604081905261002e9161011a565b335f908152600360205260408120805460ff1916600117905580546001600160401b0383166001600160401b031990911617905561006b81610071565b50610147565b806001600160401b03165f0361009a576040516310310b1960e01b815260040160405180910390fd5b6001600160401b038082165f9081526001602052604090205416156100bc5750565b6001600160401b0381165f8181526001602090815260409182902080546001600160401b0319168417905590519182527fa3b29f5280040d753fd51383140f1a15f5740432a66e6e0543e99119f3c4522e910160405180910390a150565b5f6020828403121561012a575f5ffd5b81516001600160401b0381168114610140575f5ffd5b9392505050565b6116bc806101545f395ff3fe608060405234801561000f575f5ffd5b50600436106100b1575f3560e01c8063990357e51161006e578063990357e5146101eb5780639da211671461020b578063ca480c301461021e578063d3f942c314610231578063dab73a8614610244578063e109724914610257575f5ffd5b806317abbd50146100b55780632848aeaf146100ca5780633482ec7f1461010157806345a2b96b146101145780635466d83d14610127578063977e940414610183575b5f5ffd5b6100c86100c3366004611370565b610281565b005b6100ec6100d836600461139f565b60036020525f908152604090205460ff1681565b60405190151581526020015b60405180910390f35b6100c861010f3660046113b8565b610390565b6100c861012236600461143f565b61041b565b6101646101353660046114bd565b600260209081525f928352604080842090915290825290205460ff81169061010090046001600160401b031682565b6040805192151583526001600160401b039091166020830152016100f8565b6101c3610191366004611370565b60016020525f90815260409020546001600160401b0380821691600160401b810490911690600160801b900460ff1683565b604080516001600160401b0394851681529390921660208401521515908201526060016100f8565b6101fe6101f93660046114ee565b6106da565b6040516100f89190611517565b6100c861021936600461139f565b61096a565b6100c861022c36600461139f565b6109be565b6100c861023f3660046113b8565b610a0f565b6100c86102523660046113b8565b610a94565b5f54610269906001600160401b031681565b6040516001600160401b0390911681526020016100f8565b335f9081526003602052604090205460ff166102b7576040516317f323f360e01b81523360048201526024015b60405180910390fd5b6001600160401b038082165f908152600160205260408120805490929091908216900361030257604051636271a68560e01b81526001600160401b03841660048201526024016102ae565b6001608082901c161561033357604051635699f3ef60e01b81526001600160401b03841660048201526024016102ae565b600160801b811782556040516001600160401b03841681527fcadfe6a64e10152f3376a443fde9c4663759d6f8e9afc95be75d74cbe5e25f9c9060200160405180910390a161038b610386846001611587565b610b10565b505050565b335f9081526003602052604090205460ff166103c1576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b0382161561038b575f816103db85610bba565b6103e591906115ac565b90505f5f5f6103f48787610c6b565b919450925090506104128787858561040c8a876115ac565b89610ca9565b50505050505050565b335f9081526003602052604090205460ff1661044c576040516317f323f360e01b81523360048201526024016102ae565b82811461046c5760405163388283af60e11b815260040160405180910390fd5b5f61047686610bba565b6001600160401b038781165f90815260026020526040812092909116925085906104a18260146115cb565b6104ac90600d6115e2565b6104b790600c6115e2565b6001600160401b038111156104ce576104ce6115f5565b6040519080825280601f01601f1916602001820160405280156104f8576020820181803683370190505b509050602d81015f805b8481101561064e575f8b8b8381811061051d5761051d611609565b9050602002016020810190610532919061139f565b90506001600160a01b03811615610645575f8a8a8481811061055657610556611609565b905060200201602081019061056b9190611370565b6001600160a01b0383165f90815260208a90526040812080546001600885901b811783559394509092909190821690036105b2578360601b87526014870196508560010195505b826001600160401b0316600882901c8c03019a506001600160401b0380168b11156105df576105df610d58565b8f6001600160401b0316846001600160a01b03167faa223ecc7f67d3014d35d9d5e419dd09b7e4b2ae2d427d33b1995b38ecfefe8d858e6040516106399291906001600160401b0392831681529116602082015260400190565b60405180910390a35050505b50600101610502565b506001600160401b03808c165f9081526001602052604090208054918816600160401b0267ffffffffffffffff60401b1990921691909117905560028111156106a15761069c8b8483610d6c565b6106cd565b5f5b818110156106cb57601481028401602d015160601c6106c28d82610fe0565b506001016106a3565b505b5050505050505050505050565b60605f826001600160401b03166001600160401b038111156106fe576106fe6115f5565b60405190808252806020026020018201604052801561074757816020015b604080516060810182525f80825260208083018290529282015282525f1990920191018161071c5790505b506001600160401b038681165f9081526004602090815260409182902082518084019093525464ffffffffff8116808452600160281b90910463ffffffff169183019190915292935091908616811115806107a957506001600160401b038516155b156107b957829350505050610963565b6001600160401b0387165f90815260056020908152604082209084015190919081906107e79060019061161d565b63ffffffff1690505b8082101561085b575f600261080583856115e2565b61080f9190611639565b5f818152602086905260409020549091506001600160401b038b16600160c81b90910464ffffffffff16111561084757809150610855565b6108528160016115e2565b92505b506107f0565b6001600160401b0389165f5b896001600160401b03168110801561087e57508582105b15610958575f84815260208681526040808320815160808101835290546001600160a01b0381168252600160a01b810464ffffffffff90811694830194909452600160c81b8104909316918101829052600160f01b90920460ff16151560608301529091906108ee908590611658565b9050610903836001600160401b038e16611658565b8111156109205761091d836001600160401b038e16611658565b90505b61092e8e8b85858886611187565b61093881846115e2565b925061094481856115e2565b935061094f8661166b565b95505050610867565b509596505050505050505b9392505050565b335f9081526003602052604090205460ff1661099b576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b03165f908152600360205260409020805460ff19166001179055565b335f9081526003602052604090205460ff166109ef576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b03165f908152600360205260409020805460ff19169055565b335f9081526003602052604090205460ff16610a40576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b0382161561038b575f610a5984610bba565b90505f5f5f610a688787610c6b565b9194509250905084610a7a82866115ac565b610a849190611587565b9350610412878785858989610ca9565b335f9081526003602052604090205460ff16610ac5576040516317f323f360e01b81523360048201526024016102ae565b6001600160a01b0382161561038b575f81610adf85610bba565b610ae99190611587565b90505f5f5f610af88787610c6b565b919450925090506104128787858561040c8a87611587565b806001600160401b03165f03610b39576040516310310b1960e01b815260040160405180910390fd5b6001600160401b038082165f908152600160205260409020541615610b5b5750565b6001600160401b0381165f81815260016020908152604091829020805467ffffffffffffffff19168417905590519182527fa3b29f5280040d753fd51383140f1a15f5740432a66e6e0543e99119f3c4522e910160405180910390a150565b6001600160401b038181165f90815260016020908152604080832081516060810183529054808616808352600160401b820490961693820193909352600160801b90920460ff1615159082015290918203610c3357604051636271a68560e01b81526001600160401b03841660048201526024016102ae565b806040015115610c6157604051635699f3ef60e01b81526001600160401b03841660048201526024016102ae565b6020015192915050565b6001600160401b0382165f9081526002602090815260408083206001600160a01b0385168452909152902080546001811615159060081c9250925092565b6001600883901b811785556001600160401b038088165f90815260209290925260409091208054918316600160401b0267ffffffffffffffff60401b1990921691909117905582610cfe57610cfe8686610fe0565b604080516001600160401b03848116825283811660208301528816916001600160a01b038816917faa223ecc7f67d3014d35d9d5e419dd09b7e4b2ae2d427d33b1995b38ecfefe8d910160405180910390a3505050505050565b634e487b7160e01b5f52601160045260245ffd5b6001600160401b0383165f9081526005602090815260408083206004835281842082518084019093525464ffffffffff8116808452600160281b90910463ffffffff16838501819052919492939092908701905b86811015610f64575f610dd38289611658565b90506104cc811115610de457506104cc5b5f610df08360146115cb565b610dfa90856115e2565b90505f610e088360146115cb565b610e139060016115e2565b601219830180516cffffffffffffffffffffffffff1916605083901b176c61000080600c6000396000f30017905290505f600d60148502018382f090506001600160a01b038116610e62575f5ffd5b6040518060800160405280826001600160a01b03168152602001868a610e8891906115e2565b64ffffffffff16815260200185610e9f888c6115e2565b610ea991906115e2565b64ffffffffff1681525f60209091018190528b9089610ec78161166b565b90825260208083019390935260409182015f208451815494860151938601516060909601511515600160f01b0260ff60f01b1964ffffffffff978816600160c81b021665ffffffffffff60c81b1997909516600160a01b026001600160c81b03199096166001600160a01b0390921691909117949094179490941691909117919091179091559650610f5984866115e2565b945050505050610dc0565b5060405180604001604052808785610f7c91906115e2565b64ffffffffff908116825263ffffffff9485166020928301526001600160401b03909a165f9081526004825260409020825181549390920151909416600160281b0268ffffffffffffffffff19909216991698909817979097179055505050505050565b6001600160401b0382165f9081526004602090815260409182902082518084018452905464ffffffffff8116808352600160281b90910463ffffffff168284015283516080810185526001600160a01b03861681529283018190529092909190810161104d836001611683565b64ffffffffff9081168252600160209283018190526001600160401b0388165f9081526005845260408082208886015163ffffffff1683528552908190208551815495870151878401516060909801511515600160f01b0260ff60f01b19988716600160c81b029890981665ffffffffffff60c81b1991909616600160a01b026001600160c81b03199097166001600160a01b0390921691909117959095179490941692909217939093179091558051808201909152908190611111908490611683565b64ffffffffff1681526020018360200151600161112e91906116a0565b63ffffffff9081169091526001600160401b039095165f908152600460209081526040909120825181549390920151909616600160281b0268ffffffffffffffffff1990921664ffffffffff9091161717909355505050565b6001600160401b0386165f908152600260205260409020835160608501511561121f57604080516060810182526001600160a01b0383168082525f9081526020858152908390205461010090046001600160401b0316908201529081016111ef8660016115e2565b6001600160401b031681525087878151811061120d5761120d611609565b6020026020010181905250505061134d565b5f61122b8460146115cb565b61123690600c6115e2565b6001600160401b0381111561124d5761124d6115f5565b6040519080825280601f01601f191660200182016040528015611277576020820181803683370190505b5090505f866020015164ffffffffff16866112929190611658565b61129d9060146115cb565b6112a89060016115e2565b9050601485028160208401853c5f5b858110156106cd57602060148202840181015160408051606080820183529290921c8083525f8181528985528290205461010090046001600160401b0316938301939093528101611308848b6115e2565b6113139060016115e2565b6001600160401b031690528b611329848d6115e2565b8151811061133957611339611609565b6020908102919091010152506001016112b7565b505050505050565b80356001600160401b038116811461136b575f5ffd5b919050565b5f60208284031215611380575f5ffd5b61096382611355565b80356001600160a01b038116811461136b575f5ffd5b5f602082840312156113af575f5ffd5b61096382611389565b5f5f5f606084860312156113ca575f5ffd5b6113d384611355565b92506113e160208501611389565b91506113ef60408501611355565b90509250925092565b5f5f83601f840112611408575f5ffd5b5081356001600160401b0381111561141e575f5ffd5b6020830191508360208260051b8501011115611438575f5ffd5b9250929050565b5f5f5f5f5f60608688031215611453575f5ffd5b61145c86611355565b945060208601356001600160401b03811115611476575f5ffd5b611482888289016113f8565b90955093505060408601356001600160401b038111156114a0575f5ffd5b6114ac888289016113f8565b969995985093965092949392505050565b5f5f604083850312156114ce575f5ffd5b6114d783611355565b91506114e560208401611389565b90509250929050565b5f5f5f60608486031215611500575f5ffd5b61150984611355565b92506113e160208501611355565b602080825282518282018190525f918401906040840190835b8181101561157c57835180516001600160a01b031684526020808201516001600160401b0390811682870152604092830151169185019190915290930192606090920191600101611530565b509095945050505050565b6001600160401b0381811683821601908111156115a6576115a6610d58565b92915050565b6001600160401b0382811682821603908111156115a6576115a6610d58565b80820281158282048414176115a6576115a6610d58565b808201808211156115a6576115a6610d58565b634e487b7160e01b5f52604160045260245ffd5b634e487b7160e01b5f52603260045260245ffd5b63ffffffff82811682821603908111156115a6576115a6610d58565b5f8261165357634e487b7160e01b5f52601260045260245ffd5b500490565b818103818111156115a6576115a6610d58565b5f6001820161167c5761167c610d58565b5060010190565b64ffffffffff81811683821601908111156115a6576115a6610d58565b63ffffffff81811683821601908111156115a6576115a6610d5856",
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
