# Thin wrapper over CMake carrying the README's commands.
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps configure run test bench clean asan

all: configure
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps.sh

configure: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

# The main job: train N-HiTS on bundled real data, compare with seasonal naive.
run: all
	@scripts/run-demo.sh $(BUILD)/fcast

test: all
	@scripts/install-deps.sh --test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Sanitizer build (address + undefined) of the whole suite.
asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Debug -DFC_SANITIZE=ON"

clean:
	rm -rf $(BUILD) build-asan
