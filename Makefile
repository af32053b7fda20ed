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
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

CORE_SRC := $(filter-out src/main.c,$(wildcard src/*.c))
UI_SRC := $(wildcard src/ui/*.c)
APP_SRC := src/main.c

B := build
BIN := attnviz
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o)
UI_OBJ := $(UI_SRC:%.c=$(B)/%.o)
APP_OBJ := $(APP_SRC:%.c=$(B)/%.o)
TESTS := $(patsubst tests/%.c,$(B)/tests/%,$(wildcard tests/test_*.c))
BENCH := $(B)/bench/bench

ALL_LIBS = $(NCURSES_LIBS) $(BLAS_LIBS) -lm -pthread

.PHONY: all run test check asan asan-check bench bench-ref install uninstall clean lint \
	format format-check deps deps-test screenshots fuzz

all: $(BIN)

$(BIN): $(CORE_OBJ) $(UI_OBJ) $(APP_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(ALL_LIBS)

$(B)/libattnviz.a: $(CORE_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(B)/src/ui/%.o: src/ui/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(NCURSES_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/mat.o: src/mat.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BLAS_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

# The built-in example sentences, compiled from assets/sentences.txt.
$(B)/gen/sentences.inc: assets/sentences.txt scripts/gen-sentences.sh
	@mkdir -p $(@D)
	./scripts/gen-sentences.sh $< $@

$(B)/gen/lexicon.inc: assets/lexicon.txt scripts/gen-sentences.sh
	@mkdir -p $(@D)
	./scripts/gen-sentences.sh $< $@

$(B)/src/sentences.o: src/sentences.c $(B)/gen/sentences.inc
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(B)/gen $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/src/designed.o: src/designed.c $(B)/gen/lexicon.inc
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(B)/gen $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

# Core tests link the core library only: no ncurses on their link line.
$(B)/tests/%: tests/%.c $(B)/libattnviz.a tests/test_common.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DTEST_DATA_DIR='"tests/data"' $(CFLAGS) $(WARN) -MMD -MP -o $@ $< \
		$(B)/libattnviz.a $(CMOCKA_LIBS) $(BLAS_LIBS) -lm -pthread

$(BENCH): bench/bench.c $(B)/libattnviz.a attnviz
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BLAS_CFLAGS) $(CFLAGS) $(WARN) -o $@ bench/bench.c \
		$(B)/libattnviz.a $(BLAS_LIBS) -lm -lutil -pthread

run:
	@./scripts/deps.sh run
	@$(MAKE) --no-print-directory attnviz
	./attnviz

test:
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory check

check: $(BIN) $(TESTS)
	@./tests/run.sh ./$(BIN) $(TESTS)

asan:
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory B=build/asan BIN=build/asan/attnviz \
		CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" asan-check

asan-check: $(BIN) $(TESTS)
	@ATTNVIZ_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./tests/run.sh ./$(BIN) $(TESTS)

bench:
	@./scripts/deps.sh run
	@$(MAKE) --no-print-directory $(BENCH)
	./$(BENCH) ./attnviz

# The articles' NumPy code (and PyTorch, when installed) at the same sizes:
# Debian's python3-numpy and python3-torch, for /usr/bin/python3.
bench-ref:
	/usr/bin/python3 bench/reference.py

fuzz:
	@./scripts/deps.sh test
	@./tests/fuzz/run.sh $(FUZZ_SECONDS)

screenshots: attnviz
	./scripts/screenshots.sh

install: attnviz
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1
	install -m 755 attnviz $(DESTDIR)$(PREFIX)/bin/attnviz
	install -m 644 attnviz.1 $(DESTDIR)$(MANPREFIX)/man1/attnviz.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/attnviz $(DESTDIR)$(MANPREFIX)/man1/attnviz.1

lint: $(B)/gen/sentences.inc $(B)/gen/lexicon.inc
	@! grep -ln 'curses.h' src/*.c include/*.h || { echo "lint: curses outside src/ui"; exit 1; }
	@! grep -ln 'cblas.h' $(filter-out src/mat.c,$(wildcard src/*.c src/ui/*.c)) include/*.h \
		|| { echo "lint: cblas outside src/mat.c"; exit 1; }
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability -Iinclude -I$(B)/gen src
	@echo "lint: ok"

format:
	clang-format -i src/*.c src/ui/*.c include/*.h tests/*.c tests/*.h

format-check:
	clang-format --dry-run --Werror src/*.c src/ui/*.c include/*.h

clean:
	rm -rf build attnviz

-include $(shell find build -name '*.d' 2>/dev/null)
