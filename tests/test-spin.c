/* SPDX-License-Identifier: MIT */
/*
 * test-spin.c - the daemon's adaptive poll window (pager/daemon/base/spin.c)
 * against KVM's halt-polling rules: a wait it covers keeps it, a short
 * wait it missed doubles it from 10 us up to the most, a wait past the
 * most halves it and drops it to 0 below 10 us; and a program whose
 * waits are all short is polled for at once again, one whose waits are
 * long is soon not polled for at all.
 */
#include <math.h>

#include "../pager/daemon/base/base.h"
#include "tap.h"

#define US 1e-6
#define MOST (50 * US)

/* Found empty at @t, the next message @wait later: the window after. */
static double step(struct pgr_spin *s, double *t, double wait)
{
	double until = pgr_spin_idle(s, *t, MOST);

	t_ok(until >= *t && until <= *t + MOST + 1e-12,
	     "the poll ends within the most (%.1f us)", (until - *t) / US);
	*t += wait;
	pgr_spin_came(s, *t, MOST);
	*t += 1 * US;		/* served */
	return s->window;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

int main(void)
{
	struct pgr_spin s = { 0 };
	double t = 100.0, w;

	t_ok(near(pgr_spin_idle(&s, t, MOST), t), "a new window polls not at all");
	s = (struct pgr_spin){ 0 };
	pgr_spin_came(&s, t, MOST);
	t_ok(near(s.window, 0), "a message with no wait before it teaches nothing");

	t_ok(near(step(&s, &t, 30 * US), 10 * US), "a short wait grows 0 to 10 us");
	t_ok(near(step(&s, &t, 30 * US), 20 * US), "and doubles it");
	t_ok(near(step(&s, &t, 30 * US), 40 * US), "and doubles it again");
	t_ok(near(step(&s, &t, 30 * US), 40 * US), "a wait it covered keeps it");
	t_ok(near(step(&s, &t, 45 * US), 50 * US), "growth stops at the most");
	t_ok(near(step(&s, &t, 400 * US), 25 * US), "a wait past the most halves it");
	t_ok(near(step(&s, &t, 400 * US), 12.5 * US), "and halves it again");
	t_ok(near(step(&s, &t, 400 * US), 0), "below 10 us it is 0");
	t_ok(near(step(&s, &t, 400 * US), 0), "and stays 0 while waits are long");

	/* A lower most cuts a wider window at once. */
	s = (struct pgr_spin){ .window = 50 * US };
	w = pgr_spin_idle(&s, t, 20 * US) - t;
	t_ok(near(w, 20 * US), "a lowered most caps the window (%.1f us)", w / US);

	/* Found empty twice before a message: the first time counts. */
	s = (struct pgr_spin){ .window = 40 * US };
	pgr_spin_idle(&s, t, MOST);
	w = pgr_spin_idle(&s, t + 30 * US, MOST);
	t_ok(near(w, t + 40 * US), "looking again does not restart the poll");

	/* Steady short waits: polled for from the start; long: never. */
	s = (struct pgr_spin){ 0 };
	for (int k = 0; k < 10; k++)
		step(&s, &t, 20 * US);
	t_ok(s.window >= 20 * US, "faults 20 us apart are polled for (%.1f us)",
	     s.window / US);
	for (int k = 0; k < 10; k++)
		step(&s, &t, 1000 * US);
	t_ok(near(s.window, 0), "faults 1 ms apart are not");
	return t_done();
}
