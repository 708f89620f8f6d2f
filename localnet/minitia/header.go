package minitia

import cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"

func emptyHeader() cmtproto.Header { return cmtproto.Header{} }
