package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/localnet/indexer"
	"github.com/vipharness/vipharness/localnet/router"
)

func newIndexerCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "indexer", Short: "The local indexer stand-in (rollytics' EVM tx API; Cosmos tx and block APIs)"}
	cmd.AddCommand(newIndexerServeCmd(g))
	return cmd
}

func newIndexerServeCmd(g *globals) *cobra.Command {
	var addr string
	var lenient bool
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Index the rollup live and serve rollytics' API on loopback until interrupted: an EVM rollup at --rpc (GET /indexer/tx/v1/evm-txs), a Move or Wasm rollup at --comet-rpc and --rest (GET /indexer/tx/v1/txs, /indexer/block/v1/blocks)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := []indexer.Option{indexer.WithAddr(addr), indexer.WithLogger(g.logger)}
			if lenient {
				opts = append(opts, indexer.WithLenientQuery())
			}
			var (
				ix        *indexer.Indexer
				err       error
				following = g.rpc
			)
			switch {
			case g.rpc != "":
				ix, err = indexer.New(cmd.Context(), g.rpc, opts...)
			case g.cometRPC != "" && g.rest != "":
				following = g.cometRPC
				ix, err = indexer.NewCosmos(cmd.Context(), g.cometRPC, g.rest, opts...)
			default:
				return invalid(errors.New("indexer serve: no rollup to follow: pass --rpc (EVM), or --comet-rpc and --rest (Move, Wasm)"))
			}
			if err != nil {
				return fmt.Errorf("indexer serve: %w", err)
			}
			defer ix.Close()
			if err := g.printResult(map[string]string{"url": ix.URL(), "following": following},
				fmt.Sprintf("indexer on %s following %s; Ctrl-C stops", ix.URL(), following)); err != nil {
				return err
			}
			<-cmd.Context().Done()
			return nil
		},
	}
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "listen address (loopback only)")
	serve.Flags().BoolVar(&lenient, "lenient", false, "parse bad query parameters as the real service does (defaults) instead of answering 400")
	return g.addFlags(serve, "rpc", "comet-rpc", "rest")
}

func newRouterCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "router", Short: "The local transfer-routing stand-in (Skip Go API v2 superset)"}
	cmd.AddCommand(newRouterServeCmd(g))
	return cmd
}

func newRouterServeCmd(g *globals) *cobra.Command {
	var addr, graph, chainID string
	var seed uint64
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve route, op-hook, msgs, track and status on loopback until interrupted; --rpc links the local EVM chain for tracking",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := []router.Option{router.WithAddr(addr), router.WithSeed(seed), router.WithLogger(g.logger)}
			if graph != "" {
				opts = append(opts, router.WithGraphFile(graph))
			}
			if g.rpc != "" {
				opts = append(opts, router.WithChain(chainID, g.rpc))
			}
			srv, err := router.Start(cmd.Context(), opts...)
			if err != nil {
				return invalid(fmt.Errorf("router serve: %w", err))
			}
			defer srv.Close()
			if err := g.printResult(map[string]string{"url": srv.URL(), "tracks": g.rpc},
				fmt.Sprintf("router stand-in on %s (control: POST %s/control/faults); Ctrl-C stops", srv.URL(), srv.URL())); err != nil {
				return err
			}
			<-cmd.Context().Done()
			return nil
		},
	}
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "listen address (loopback only)")
	serve.Flags().StringVar(&graph, "graph", "", "graph of chains, assets and bridges (default: fixtures/router/graph.json, built in)")
	serve.Flags().StringVar(&chainID, "chain-id", "3370758106842963", "chain id of the graph that --rpc runs")
	serve.Flags().Uint64Var(&seed, "seed", 1, "seed for timings and injected faults")
	return g.addFlags(serve, "rpc")
}
