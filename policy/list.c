/* SPDX-License-Identifier: MIT */
/*
 * list.c - doubly linked lists of descriptors, linked by 32-bit indices.
 *
 * Each list keeps its head (most recently added end), its tail (where
 * scanning takes from) and its length. Links of a descriptor that is on
 * no list are meaningless. The page and inode variants are the same code
 * over two descriptor arrays; a macro would hide that, so they are written
 * out.
 *
 *	head -> [i] <-> [j] <-> [k] <- tail
 *	prev of head and next of tail are POL_NONE.
 */
#include "internal.h"

void pol__list_init(struct pol_list *l)
{
	l->head = POL_NONE;
	l->tail = POL_NONE;
	l->nr = 0;
}

void pol__list_add_head(struct pol *pol, struct pol_list *l, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	p->prev = POL_NONE;
	p->next = l->head;
	if (l->head != POL_NONE)
		pg(pol, l->head)->prev = i;
	else
		l->tail = i;
	l->head = i;
	l->nr++;
}

void pol__list_add_tail(struct pol *pol, struct pol_list *l, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	p->next = POL_NONE;
	p->prev = l->tail;
	if (l->tail != POL_NONE)
		pg(pol, l->tail)->next = i;
	else
		l->head = i;
	l->tail = i;
	l->nr++;
}

void pol__list_del(struct pol *pol, struct pol_list *l, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	if (p->prev != POL_NONE)
		pg(pol, p->prev)->next = p->next;
	else
		l->head = p->next;
	if (p->next != POL_NONE)
		pg(pol, p->next)->prev = p->prev;
	else
		l->tail = p->prev;
	p->next = p->prev = POL_NONE;
	l->nr--;
}

void pol__ilist_add_head(struct pol *pol, struct pol_list *l, uint32_t i)
{
	struct pol_inode *n = &pol->inodes[i];

	n->prev = POL_NONE;
	n->next = l->head;
	if (l->head != POL_NONE)
		pol->inodes[l->head].prev = i;
	else
		l->tail = i;
	l->head = i;
	l->nr++;
}

void pol__ilist_add_tail(struct pol *pol, struct pol_list *l, uint32_t i)
{
	struct pol_inode *n = &pol->inodes[i];

	n->next = POL_NONE;
	n->prev = l->tail;
	if (l->tail != POL_NONE)
		pol->inodes[l->tail].next = i;
	else
		l->head = i;
	l->tail = i;
	l->nr++;
}

void pol__ilist_del(struct pol *pol, struct pol_list *l, uint32_t i)
{
	struct pol_inode *n = &pol->inodes[i];

	if (n->prev != POL_NONE)
		pol->inodes[n->prev].next = n->next;
	else
		l->head = n->next;
	if (n->next != POL_NONE)
		pol->inodes[n->next].prev = n->prev;
	else
		l->tail = n->prev;
	n->next = n->prev = POL_NONE;
	l->nr--;
}
