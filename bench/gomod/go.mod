module example.com/isorun-bench/gomod

go 1.19
