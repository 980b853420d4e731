/* SPDX-License-Identifier: MIT */
/*
 * spin.c - the adaptive poll window (spin.h), with KVM's halt-polling
 * rules: grow by 2 from halt_poll_ns_grow_start, shrink by 2
 * (halt_poll_ns_shrink), 0 below the start.
 *
 * Owns: nothing; each user keeps its struct pgr_spin.
 */
#include "base.h"

double pgr_spin_idle(struct pgr_spin *s, double now, double most)
{
	if (s->window > most)
		s->window = most;
	if (!s->idle_from)
		s->idle_from = now;
	return s->idle_from + s->window;
}

void pgr_spin_came(struct pgr_spin *s, double now, double most)
{
	double wait = now - s->idle_from;

	if (!s->idle_from)
		return;		/* messages back to back: nothing learned */
	s->idle_from = 0;
	if (wait <= s->window)
		return;		/* the poll caught it */
	if (wait > most) {
		s->window /= 2;
		if (s->window < PGR_SPIN_GROW_START)
			s->window = 0;
	} else {
		s->window *= 2;
		if (s->window < PGR_SPIN_GROW_START)
			s->window = PGR_SPIN_GROW_START;
		if (s->window > most)
			s->window = most;
	}
}
