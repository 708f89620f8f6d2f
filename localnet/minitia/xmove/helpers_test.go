package xmove_test

import "os"

func requireNodes() bool { return os.Getenv("REQUIRE_NODES") == "1" || os.Getenv("CI") == "true" }
