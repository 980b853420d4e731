/* SPDX-License-Identifier: MIT */
/*
 * t-trace.c - see t-trace.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../pager/sim/sim.h"
#include "t-trace.h"
#include "tap.h"

/* ---- reading and comparing ----------------------------------------------- */

int t_read_mem(struct trace *t, const void *p, size_t n, const char *name,
	       enum trace_format fmt)
{
	FILE *f = n ? fmemopen((void *)p, n, "r") : fopen("/dev/null", "r");
	int ret;

	if (!f) {
		t_ok(0, "open a memory stream: %s", strerror(errno));
		exit(1);
	}
	ret = trace_read(t, f, name, fmt);
	fclose(f);
	return ret;
}

int t_read_str(struct trace *t, const char *text, enum trace_format fmt)
{
	return t_read_mem(t, text, strlen(text), "test.trace", fmt);
}

static const char *const op_names[] = {
	"ACCESS", "FD", "MAP", "UNMAP", "CLONE", "RESIZE", "MADVISE", "EXIT",
	"PROCGROUP", "TRUNCATE", "PHASE", "SET", "EXPECT", "RECLAIM",
};

static void ev_diag(const char *who, size_t k, const struct ev *e)
{
	t_diag("%s event %zu: %s flags %u aux %u obj %u off %u len %u", who,
	       k, e->op < ARRAY_SIZE(op_names) ? op_names[e->op] : "?",
	       e->flags, e->aux, e->obj, e->off, e->len);
}

static bool ev_equal(const struct ev *a, const struct ev *b)
{
	return a->op == b->op && a->flags == b->flags && a->aux == b->aux &&
	       a->obj == b->obj && a->off == b->off && a->len == b->len;
}

/* Are the events the same? Diagnoses the first difference if @loud. */
bool t_same_events(const struct ev *got, size_t ngot, const struct ev *want,
		   size_t nwant, bool loud)
{
	size_t n = ngot < nwant ? ngot : nwant;

	for (size_t k = 0; k < n; k++) {
		if (ev_equal(&got[k], &want[k]))
			continue;
		if (loud) {
			ev_diag("got ", k, &got[k]);
			ev_diag("want", k, &want[k]);
		}
		return false;
	}
	if (ngot != nwant && loud)
		t_diag("got %zu events, want %zu", ngot, nwant);
	return ngot == nwant;
}

void t_check_events(const struct trace *t, const struct ev *want, size_t n,
		    const char *what)
{
	t_ok(t_same_events(t->ev, t->nr_ev, want, n, true),
	     "%s: the %zu events expected", what, n);
}

/* ---- traces read by more than one program -------------------------------- */

const char t_good_text[] =
	"pager-trace 1\n"
	"# every command once\n"
	"group g1 memory.low=1M\n"
	"group g2 parent=g1 memory.low=64K memory.max=max\n"
	"file 7 64K group=g1\n"
	"file 8 8K\n"
	"proc 1 group=g2\n"
	"mmap 1 0x10000 16K anon private\n"
	"mmap 1 0x20000 16K file:7@8K exec shared seq locked\n"
	"w 1 0x10000\n"
	"r 1 0x11000 8K\n"
	"r 1 0x21000\n"
	"munmap 1 0x11000 4K\n"
	"r 1 0x13000\n"
	"mremap 1 0x12000 8K 0x40000 16K\n"
	"w 1 0x41000\n"
	"w 1 0x43fff 1\n"
	"madvise 1 0x40000 8K cold\n"
	"mremap 1 0x20000 16K 0x60000 16K\n"
	"r 1 0x61000\n"
	"read 7 0 8K pid=1\n"
	"write 8 4K 4K\n"
	"write 8 16K 100\n"
	"truncate 8 4K\n"
	"fork 1 2\n"
	"w 2 0x43000\n"
	"proc 2 group=g1\n"
	"phase warm\n"
	"set vm.swappiness=100\n"
	"reclaim kswapd\n"
	"reclaim direct\n"
	"reclaim group g1 16\n"
	"reclaim list root inactive_anon 8\n"
	"reclaim inodes g2 3\n"
	"expect pgfault > 0\n"
	"expect page 1 0x41000 resident\n"
	"expect file 7 0 resident\n"
	"exit 2\n"
	"munmap 1 0x10000 4K\n"
	"munmap 1 0x40000 16K\n";

const char t_lackey_text[] =
	"==1234== Lackey, an example Valgrind tool\n"
	"==1234== Command: ./a.out\n"
	"==1234== \n"
	"I  04016a3,3\n"
	" L 7ff000398,8\n"
	" S 7ff000398,8\n"
	" M 0601040,4\n"
	"I  04016a8,5\n"
	" L 0401000,4\n"
	"\n"
	"==1234== \n";

/* ---- the writer scenario ------------------------------------------------- */

/* A trace of lines and accesses, written to @w. */
void t_scenario(struct trace_writer *w)
{
	const uint64_t text = UINT64_C(0x7f0000000000);

	trace_writer_line(w, "file 7 64K");
	trace_writer_line(w, "mmap 1 0x10000 256K anon");
	trace_writer_line(w, "mmap 1 0x7f0000000000 64K file:7 exec");
	for (unsigned int i = 0; i < 64; i++)
		trace_writer_access(w, 1, 0x10000 + i * 4096, i % 3 == 0);
	trace_writer_access(w, 1, text + 0x3000, false);
	trace_writer_access(w, 1, 0x10020, true);	/* far back */
	trace_writer_line(w, "fork 1 2");
	for (unsigned int i = 0; i < 16; i++) {
		trace_writer_access(w, 2, 0x10000 + (15 - i) * 4096, true);
		trace_writer_access(w, 1, text + i * 4096, false);
	}
	trace_writer_line(w, "phase two");
	trace_writer_line(w, "munmap 2 0x10000 128K");
	trace_writer_access(w, 2, 0x30fff, false);
	trace_writer_line(w, "exit 2");
	trace_writer_access(w, 1, 0x4f000, true);
	trace_writer_line(w, "expect pgfault > 0");
}

void t_mem_open(struct t_mem *m)
{
	m->p = NULL;
	m->len = 0;
	m->f = open_memstream(&m->p, &m->len);
	if (!m->f) {
		t_ok(0, "open_memstream: %s", strerror(errno));
		exit(1);
	}
}

void t_mem_close(struct t_mem *m)
{
	fclose(m->f);
	m->f = NULL;
}

/* The binary form of t_scenario(), in @bin (free bin->p). */
void t_scenario_binary(struct t_mem *bin)
{
	struct trace_writer *w;

	t_mem_open(bin);
	w = trace_writer_open(bin->f, true);
	t_scenario(w);
	t_ok(trace_writer_close(w) == 0, "binary writer closes");
	t_mem_close(bin);
}

/* ---- replay in a child process ------------------------------------------- */

const char *t_run_name(enum t_outcome r)
{
	static const char *const names[] = { "ok", "error", "refused",
					     "invariant broken", "-1 without "
					     "an error", "crash" };

	return r >= T_RUN_OK && r <= T_RUN_CRASH ? names[r - T_RUN_OK] : "?";
}

/*
 * Replay @t with 256 pages of memory and 64 of swap in a child process.
 * @why gets s->err, or when the child died, the sanitizer's verdict and
 * where ("heap-buffer-overflow in page_states .../sim-report.c:135").
 */
enum t_outcome t_replay(const struct trace *t, char *why, size_t len)
{
	FILE *log = tmpfile();
	enum t_outcome res;
	int status;
	pid_t pid;

	why[0] = 0;
	if (!log) {
		snprintf(why, len, "tmpfile: %s", strerror(errno));
		return T_RUN_CRASH;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		fclose(log);
		return T_RUN_CRASH;
	}
	if (pid == 0) {
		struct sim_opts o = { .budget = 256, .swap = 64,
				      .check = true };
		char err[256];
		struct sim *s;
		int code;

		dup2(fileno(log), STDERR_FILENO);
		alarm(20);
		s = sim_create(t, &o, err, sizeof(err));
		if (!s) {
			fprintf(stderr, "%s\n", err);
			_exit(T_RUN_REFUSED);
		}
		if (!sim_run(s))
			code = T_RUN_OK;
		else if (!s->err[0])
			code = T_RUN_NOERR;
		else if (!strncmp(s->err, "policy invariant broken", 23))
			code = T_RUN_INVARIANT;
		else
			code = T_RUN_ERROR;
		if (code != T_RUN_OK)
			fprintf(stderr, "%s\n", s->err);
		fflush(stderr);
		sim_destroy(s);
		_exit(code);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) >= T_RUN_OK &&
	    WEXITSTATUS(status) < T_RUN_CRASH)
		res = (enum t_outcome)WEXITSTATUS(status);
	else
		res = T_RUN_CRASH;
	if (res != T_RUN_OK) {
		char buf[512], err[128] = "", frame[200] = "", last[256] = "";
		const char *p, *q;

		/* s->err is the last line; a sanitizer's verdict the first,
		 * with the frame it happened in below. */
		rewind(log);
		while (fgets(buf, sizeof(buf), log)) {
			buf[strcspn(buf, "\n")] = 0;
			if (!err[0] && (p = strstr(buf, "Sanitizer: ")))
				snprintf(err, sizeof(err), "%.*s",
					 (int)strcspn(p + 11, " "), p + 11);
			else if (!err[0] && strstr(buf, "runtime error:"))
				snprintf(err, sizeof(err), "%.127s", buf);
			else if (err[0] && !frame[0] &&
				 (p = strstr(buf, "#0 ")) &&
				 (q = strstr(p, " in ")))
				snprintf(frame, sizeof(frame), "%.199s", q + 4);
			else if (buf[0] && buf[0] != ' ')
				snprintf(last, sizeof(last), "%.250s", buf);
		}
		if (res == T_RUN_CRASH && err[0])
			snprintf(why, len, "%s%s%s", err,
				 frame[0] ? " in " : "", frame);
		else if (res == T_RUN_CRASH && WIFSIGNALED(status))
			snprintf(why, len, "killed by signal %d",
				 WTERMSIG(status));
		else if (res == T_RUN_CRASH)
			snprintf(why, len, "exit status %d", WIFEXITED(status) ?
				 WEXITSTATUS(status) : -1);
		else
			snprintf(why, len, "%s", last);
	}
	fclose(log);
	return res;
}

bool t_run_bad(enum t_outcome r)
{
	return r == T_RUN_INVARIANT || r == T_RUN_NOERR || r == T_RUN_CRASH;
}
