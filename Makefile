# attnviz - transformer attention, visible in the terminal.
# Plain GNU Make. `make` builds ./attnviz; `make run` and `make test` first
# install missing Debian packages (scripts/deps.sh) and say so.

CC ?= cc
PREFIX ?= /usr/local
MANPREFIX ?= $(PREFIX)/share/man
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g

WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Werror
override CPPFLAGS += -Iinclude -D_DEFAULT_SOURCE
ifdef DEBUG
CFLAGS := -O0 -g
endif

# Libraries from pkg-config, each with a fallback (nnn's way).
NCURSES_CFLAGS = $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
NCURSES_LIBS = $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
ifdef NO_BLAS
BLAS_CFLAGS = -DNO_BLAS
BLAS_LIBS =
else
BLAS_CFLAGS = $(shell $(PKG_CONFIG) --cflags openblas 2>/dev/null || echo -I/usr/include/x86_64-linux-gnu/openblas-pthread)
BLAS_LIBS = $(shell $(PKG_CONFIG) --libs openblas 2>/dev/null || echo -lopenblas)
endif
# libcurl only for the download (src/cli/hub/hubhttp.c, hubblob.c) and the final link.
CURL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libcurl 2>/dev/null)
CURL_LIBS = $(shell $(PKG_CONFIG) --libs libcurl 2>/dev/null || echo -lcurl)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# Test files run at once by tests/run.sh (make test J=4): a job per core and
# one more, since the tmux scripts spend most of their time waiting for
# frames (README "Tests": 8.5 min at 3 jobs on 2 cores).
J ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))
# The e2e scripts a run takes (each script's "# tier:" line; tests/run.sh).
TIER ?= test
# make asan's: those whose "# asan: yes" line says the sanitizers find
# something there (batch command line, the soak, the fuzz corpora); make
# fulltest's: all.
ASAN_SEL ?= --asan

SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# The layers, bottom to top (README "Architecture"): each is a folder of
# src/ and of include/, built into one archive. A file may include headers of
# its own layer or of a lower one; `make lint` fails on one that goes up.
LAYERS := core io train render app ui cli
B := build
BIN := attnviz
MAIN_SRC := src/cli/main.c
# (a layer's subfolders too, two deep: core's fast kernels live in src/core/fast/)
layer_src = $(filter-out $(MAIN_SRC),$(wildcard src/$(1)/*.c src/$(1)/*/*.c src/$(1)/*/*/*.c))
layer_lib = $(B)/lib$(1).a
# $(call below,L): L and every layer under it, top first (the link order).
below = $(strip $(call _below,$(1),$(LAYERS),))
_below = $(if $(2),$(if $(filter $(1),$(firstword $(2))),$(firstword $(2)) $(3),\
	$(call _below,$(1),$(wordlist 2,99,$(2)),$(firstword $(2)) $(3))))
LIBS_OF = $(foreach l,$(call below,$(1)),$(call layer_lib,$(l)))

ALL_SRC := $(foreach l,$(LAYERS),$(call layer_src,$(l)))
ALL_LIB := $(foreach l,$(LAYERS),$(call layer_lib,$(l)))
MAIN_OBJ := $(MAIN_SRC:%.c=$(B)/%.o)
# Unit tests live in tests/<layer>/ and link that layer's archive and those below.
TEST_SRC := $(foreach l,$(LAYERS),$(wildcard tests/$(l)/test_*.c))
TESTS := $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRC))
BENCH := $(B)/bench/bench
TRAIN_BENCH := $(B)/bench/train_bench

ALL_LIBS = $(NCURSES_LIBS) $(BLAS_LIBS) -lm -pthread

# What the objects of $(B) were compiled with. A change (make NO_BLAS=1 and
# then make, OpenBLAS or ncursesw installed since, other CFLAGS) rewrites the
# file, and every object depends on it: they are all compiled again rather
# than linked half with the old flags and half with the new.
FLAGS_LINE := $(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(BLAS_CFLAGS) $(NCURSES_CFLAGS) $(CURL_CFLAGS)
FLAGS_STAMP := $(B)/flags
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_LINE))
$(shell mkdir -p $(B))
$(file >$(FLAGS_STAMP),$(FLAGS_LINE))
endif

.PHONY: all run test quick fulltest check asan asan-check bench bench-ref bench-import install \
	uninstall clean lint format format-check deps deps-test screenshots fuzz soak models

all: $(BIN)

$(BIN): $(MAIN_OBJ) $(ALL_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(call LIBS_OF,cli) $(ALL_LIBS) $(CURL_LIBS)

define LAYER_RULE
$(call layer_lib,$(1)): $(patsubst %.c,$(B)/%.o,$(call layer_src,$(1)))
	@mkdir -p $$(@D)
	rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call LAYER_RULE,$(l))))

$(B)/src/ui/%.o: src/ui/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(NCURSES_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/cli/hub/hubhttp.o $(B)/src/cli/hub/hubblob.o: $(B)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CURL_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/core/mat.o: src/core/mat.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BLAS_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/%.o: src/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

# The built-in example sentences, compiled from assets/sentences.txt.
$(B)/gen/sentences.inc: assets/sentences.txt scripts/gen-sentences.sh
	@mkdir -p $(@D)
	./scripts/gen-sentences.sh $< $@

$(B)/gen/lexicon.inc: assets/lexicon.txt scripts/gen-sentences.sh
	@mkdir -p $(@D)
	./scripts/gen-sentences.sh $< $@

# The built-in lessons, compiled from assets/lessons/*.lesson (read from that
# folder at run time only by a build without the generated include).
LESSON_FILES := $(sort $(wildcard assets/lessons/*.lesson))
$(B)/gen/lessons.inc: $(LESSON_FILES) scripts/gen-lessons.sh
	@mkdir -p $(@D)
	./scripts/gen-lessons.sh $@ $(LESSON_FILES)

$(B)/src/io/lesson/lesson_builtin.o: src/io/lesson/lesson_builtin.c $(B)/gen/lessons.inc $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(B)/gen $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/io/sentences.o: src/io/sentences.c $(B)/gen/sentences.inc $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(B)/gen $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

# The page of --export html: its CSS and JavaScript, compiled from assets/export/.
$(B)/gen/export_view_%.inc: assets/export/view.% scripts/gen-sentences.sh
	@mkdir -p $(@D)
	./scripts/gen-sentences.sh $< $@

$(B)/src/render/html.o: src/render/html.c $(B)/gen/export_view_css.inc $(B)/gen/export_view_js.inc \
		$(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(B)/gen $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/core/designed.o: src/core/designed.c $(B)/gen/lexicon.inc $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(B)/gen $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

# A test of layer L links L's archive and those below, nothing else: a core
# test has no ncurses on its link line, so core cannot call up by accident.
define TEST_RULE
$(B)/tests/$(1)/%: tests/$(1)/%.c $(call LIBS_OF,$(1)) tests/test_common.h $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) -Itests -DTEST_DATA_DIR='"tests/data"' $$(CFLAGS) $$(WARN) -MMD -MP \
		-o $$@ $$< $(call LIBS_OF,$(1)) $$(CMOCKA_LIBS) \
		$(if $(filter ui cli,$(1)),$$(NCURSES_LIBS)) $$(BLAS_LIBS) -lm -pthread
endef
$(foreach l,$(LAYERS),$(eval $(call TEST_RULE,$(l))))

# The bench takes the start-up kernel check (cli/blaskern.c) from the cli
# archive and GPT-2's model kind from app's; nothing of the interface is linked.
$(BENCH): bench/bench.c bench/bench_tty.c bench/bench_tty.h bench/bench_util.h \
		bench/bench_gpt2.c bench/bench_gpt2.h bench/bench_bert.c bench/bench_bert.h \
		$(call LIBS_OF,app) $(call layer_lib,cli) $(BIN) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BLAS_CFLAGS) $(CFLAGS) $(WARN) -o $@ bench/bench.c bench/bench_tty.c \
		bench/bench_gpt2.c bench/bench_bert.c \
		$(call layer_lib,cli) $(call LIBS_OF,app) $(BLAS_LIBS) -lm -lutil -pthread

run:
	@./scripts/deps.sh run
	@$(MAKE) --no-print-directory attnviz
	./attnviz

test:
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory check

# The benches are built too, with -Werror: an API change that breaks them
# fails `make test`, not the next `make bench`.
check: $(BIN) $(TESTS) $(BENCH) $(TRAIN_BENCH)
	@./tests/run.sh -j $(J) --tier $(TIER) --save-times $(B)/test-times.txt ./$(BIN) $(TESTS)

# The loop for every edit: lint, the unit tests and the fast e2e scripts.
quick:
	@$(MAKE) --no-print-directory lint $(BIN) $(TESTS)
	@./tests/run.sh -j $(J) --tier quick ./$(BIN) $(TESTS)

# Before a release or an issue's close: every script at every tier, plain
# and under the sanitizers, the paint comparisons on every terminal and size,
# the fuzzers with fresh seeds (FUZZ_SECONDS each), the long keystroke soak
# and the storm (make soak: SOAK_MINUTES on each build, and the long streams).
fulltest:
	@./scripts/deps.sh test
	@PAINT_SIZES=all $(MAKE) --no-print-directory TIER=full check
	@PAINT_SIZES=all $(MAKE) --no-print-directory TIER=full ASAN_SEL= asan
	@./tests/fuzz/run.sh $(or $(FUZZ_SECONDS),60)
	@ATTNVIZ=$(CURDIR)/$(BIN) bash tests/soak/soak.sh --keys 10000 --seed 1
	@$(MAKE) --no-print-directory soak

asan:
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory B=build/asan BIN=build/asan/attnviz \
		CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" TIER=$(TIER) ASAN_SEL="$(ASAN_SEL)" asan-check

asan-check: $(BIN) $(TESTS) $(BENCH) $(TRAIN_BENCH)
	@ATTNVIZ_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		./tests/run.sh -j $(J) --tier $(TIER) $(ASAN_SEL) --save-times $(B)/test-times.txt \
		./$(BIN) $(TESTS)

$(TRAIN_BENCH): bench/train_bench.c $(call LIBS_OF,train) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ bench/train_bench.c \
		$(call LIBS_OF,train) $(BLAS_LIBS) -lm -pthread

bench:
	@./scripts/deps.sh bench
	@$(MAKE) --no-print-directory $(BENCH) $(TRAIN_BENCH)
	./$(BENCH) ./attnviz
	./$(TRAIN_BENCH)

# The interface on an imported (12, 12, 2048, 2048) float32 array: the first
# frame, warm and cold, and each key (needs tmux, NumPy and 2.4 GB in $TMPDIR;
# about a minute). Apart from `make bench`, which stays under two minutes.
bench-import: $(BIN)
	@./scripts/deps.sh test
	./scripts/bench-import.sh ./$(BIN)

# The articles' NumPy code (and PyTorch, when installed) at the same sizes,
# and PyTorch's GPT-2 forward on the bench's gpt2-shaped checkpoint:
# Debian's python3-numpy and python3-torch, for /usr/bin/python3.
bench-ref:
	@./scripts/deps.sh ref
	@$(MAKE) --no-print-directory $(BENCH) $(TRAIN_BENCH)
	/usr/bin/python3 bench/reference.py --bench ./$(BENCH)
	/usr/bin/python3 bench/train_reference.py --bench ./$(TRAIN_BENCH)
	/usr/bin/python3 bench/gpt2_reference.py --bench ./$(BENCH)

# The small trained models of assets/models/, from fixed seeds (assets/models/README.md).
models: $(BIN)
	./scripts/make-models.sh ./$(BIN)

fuzz:
	@./scripts/deps.sh test
	@./tests/fuzz/run.sh $(FUZZ_SECONDS)

# The long storm soak (tests/soak/storm.py, README "Tests"): SOAK_MINUTES
# (default 5) on the plain build, then as long on the ASan/UBSan build
# (build/asan/attnviz, built here), or SOAK_KEYS keys each; a fresh seed
# unless SOAK_SEED. SOAK_BUILDS=plain (or asan) runs one of the two.
SOAK_MINUTES ?= 5
SOAK_BUILDS ?= plain asan
soak:
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory $(BIN)
	@case " $(SOAK_BUILDS) " in *" asan "*) $(MAKE) --no-print-directory B=build/asan \
		BIN=build/asan/attnviz CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" build/asan/attnviz ;; esac
	@./tests/soak/long.sh "$(SOAK_BUILDS)" "$(SOAK_MINUTES)" "$(SOAK_KEYS)" "$(SOAK_SEED)"

screenshots: attnviz
	./scripts/deps.sh shots
	./scripts/screenshots.sh
	./scripts/screenshots-svg.sh
	./scripts/screenshots-import.sh
	./scripts/screenshots-lessons.sh
	./scripts/screenshots-train.sh

# The files the program opens at run time (the examples' weights, the
# lessons' models, the grammar) go to $(PREFIX)/share/attnviz/assets, where
# an installed attnviz finds them beside its bin folder (io/assets.h).
DATADIR := $(PREFIX)/share/attnviz
RUN_ASSETS := assets/seed000 assets/seed001 assets/grammar assets/models

install: attnviz
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 $(DESTDIR)$(DATADIR)/assets
	install -m 755 attnviz $(DESTDIR)$(PREFIX)/bin/attnviz
	install -m 644 attnviz.1 $(DESTDIR)$(MANPREFIX)/man1/attnviz.1
	cp -R $(RUN_ASSETS) $(DESTDIR)$(DATADIR)/assets/
	chmod -R a+rX,go-w $(DESTDIR)$(DATADIR)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/attnviz $(DESTDIR)$(MANPREFIX)/man1/attnviz.1
	rm -rf $(DESTDIR)$(DATADIR)

lint: $(B)/gen/sentences.inc $(B)/gen/lexicon.inc $(B)/gen/lessons.inc \
		$(B)/gen/export_view_css.inc $(B)/gen/export_view_js.inc
	@./scripts/layers.py $(LAYERS)
	@./scripts/kinds.sh
	@./scripts/includes.py
	@$(MAKE) --no-print-directory format-check
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability -Iinclude -I$(B)/gen src
	@echo "lint: ok"

# The C this project writes, as `make format` lays it out and lint checks it.
FORMAT_FILES = $(wildcard src/*/*.[ch] src/*/*/*.[ch] include/*/*.h tests/*.h tests/*/*.[ch] \
	tests/*/*/*.[ch] bench/*.[ch])

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf build attnviz

-include $(shell find build -name '*.d' 2>/dev/null)
