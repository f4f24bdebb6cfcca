/*-------------------------------------------------------------------------
 *
 * size_text.h
 *	  Sizes as the guard's messages show them (size_text.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_SIZE_TEXT_H
#define MEMPROBE_SIZE_TEXT_H

extern char *size_text(int64 bytes);
extern void size_texts_apart(int64 figure, int64 setting, char **figure_text,
							 char **setting_text);

#endif							/* MEMPROBE_SIZE_TEXT_H */
