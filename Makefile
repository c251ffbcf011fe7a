# openvgf front door. `make demo` and `make test` each install missing Debian packages,
# configure and build with CMake, then run the demo / the whole test suite.
JOBS ?= $(shell nproc)
BUILD ?= build/release
ASAN_BUILD ?= build/asan
FUZZ_BUILD ?= build/fuzz
TSAN_BUILD ?= build/tsan
CMAKE_FLAGS ?=
# ccache keys on relative paths below the checkout, so a fresh clone (CI) reuses the cache.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

# make fuzz-long [FUZZ_SECONDS=3600] [FUZZ_RUNS=0] [FUZZ_TARGETS="vgf_session tosa_reader"]:
# every fuzz target for FUZZ_SECONDS each (and/or FUZZ_RUNS executions; 0 = no limit).
FUZZ_SECONDS ?= 3600
FUZZ_RUNS ?= 0
FUZZ_TARGETS ?=

.PHONY: all deps build demo test test-release test-asan test-fuzz test-tsan fuzz-build fuzz-long clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPENVGF_WERROR=ON $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

# The whole suite: Release build + tests, the tests again under ASan+UBSan, the fuzz
# targets for a bounded number of runs, and the concurrency tests under TSan.
test: deps
	$(MAKE) test-release
	$(MAKE) test-asan
	$(MAKE) test-fuzz
	$(MAKE) test-tsan

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DOPENVGF_ENABLE_SANITIZERS=ON \
	  -DOPENVGF_BUILD_BENCHMARKS=OFF -DOPENVGF_WERROR=ON -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -LE 'no-sanitizer|vulkan'
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j $(JOBS) -L vulkan -LE no-sanitizer

fuzz-build: deps
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DOPENVGF_ENABLE_FUZZERS=ON -DOPENVGF_BUILD_BENCHMARKS=OFF \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets

test-fuzz: fuzz-build
	cd $(FUZZ_BUILD) && ctest --output-on-failure -j $(JOBS) -L fuzz

# Long campaigns (tests/fuzz/README.md); not part of `make test`.
fuzz-long: fuzz-build
	tests/fuzz/fuzz_long.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_RUNS) $(FUZZ_TARGETS)

test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DOPENVGF_ENABLE_TSAN=ON \
	  -DOPENVGF_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target tsan_targets
	cd $(TSAN_BUILD) && ctest --output-on-failure -L tsan

clean:
	rm -rf build
