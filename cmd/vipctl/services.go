package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/localnet/indexer"
	"github.com/vipharness/vipharness/localnet/router"
)

func newIndexerCmd(ro *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "indexer", Short: "The local indexer stand-in (rollytics' EVM tx API; Cosmos tx and block APIs)"}
	cmd.AddCommand(newIndexerServeCmd(ro))
	return cmd
}

func newIndexerServeCmd(ro *rootOptions) *cobra.Command {
	var addr string
	var lenient bool
	o := newChainOptions() // --rpc, --comet-rpc and --rest
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Index the rollup live and serve rollytics' API on loopback until interrupted: an EVM rollup at --rpc (GET /indexer/tx/v1/evm-txs), a Move or Wasm rollup at --comet-rpc and --rest (GET /indexer/tx/v1/txs, /indexer/block/v1/blocks)",
		Args:  cobra.NoArgs,
		RunE: ro.runs(func(ctx context.Context, sess session) error {
			opts := []indexer.Option{indexer.WithAddr(addr), indexer.WithLogger(sess.logger)}
			if lenient {
				opts = append(opts, indexer.WithLenientQuery())
			}
			var (
				ix        *indexer.Indexer
				err       error
				following = o.rpc
			)
			switch {
			case o.rpc != "":
				ix, err = indexer.New(ctx, o.rpc, opts...)
			case o.cometRPC != "" && o.rest != "":
				following = o.cometRPC
				ix, err = indexer.NewCosmos(ctx, o.cometRPC, o.rest, opts...)
			default:
				return invalid(errors.New("indexer serve: no rollup to follow: pass --rpc (EVM), or --comet-rpc and --rest (Move, Wasm)"))
			}
			if err != nil {
				return fmt.Errorf("indexer serve: %w", err)
			}
			defer ix.Close()
			if err := sess.printResult(map[string]string{"url": ix.URL(), "following": following},
				fmt.Sprintf("indexer on %s following %s; Ctrl-C stops", ix.URL(), following)); err != nil {
				return err
			}
			<-ctx.Done()
			return nil
		}),
	}
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "listen address (loopback only)")
	serve.Flags().BoolVar(&lenient, "lenient", false, "parse bad query parameters as the real service does (defaults) instead of answering 400")
	return o.addFlags(serve, "rpc", "comet-rpc", "rest")
}

func newRouterCmd(ro *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "router", Short: "The local transfer-routing stand-in (Skip Go API v2 superset)"}
	cmd.AddCommand(newRouterServeCmd(ro))
	return cmd
}

func newRouterServeCmd(ro *rootOptions) *cobra.Command {
	var addr, graph, chainID string
	var seed uint64
	o := newChainOptions() // --rpc
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve route, op-hook, msgs, track and status on loopback until interrupted; --rpc links the local EVM chain for tracking",
		Args:  cobra.NoArgs,
		RunE: ro.runs(func(ctx context.Context, sess session) error {
			opts := []router.Option{router.WithAddr(addr), router.WithSeed(seed), router.WithLogger(sess.logger)}
			if graph != "" {
				opts = append(opts, router.WithGraphFile(graph))
			}
			if o.rpc != "" {
				opts = append(opts, router.WithChain(chainID, o.rpc))
			}
			srv, err := router.Start(ctx, opts...)
			if err != nil {
				return invalid(fmt.Errorf("router serve: %w", err))
			}
			defer srv.Close()
			if err := sess.printResult(map[string]string{"url": srv.URL(), "tracks": o.rpc},
				fmt.Sprintf("router stand-in on %s (control: POST %s/control/faults); Ctrl-C stops", srv.URL(), srv.URL())); err != nil {
				return err
			}
			<-ctx.Done()
			return nil
		}),
	}
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "listen address (loopback only)")
	serve.Flags().StringVar(&graph, "graph", "", "graph of chains, assets and bridges (default: fixtures/router/graph.json, built in)")
	serve.Flags().StringVar(&chainID, "chain-id", "3370758106842963", "chain id of the graph that --rpc runs")
	serve.Flags().Uint64Var(&seed, "seed", 1, "seed for timings and injected faults")
	return o.addFlags(serve, "rpc")
}
