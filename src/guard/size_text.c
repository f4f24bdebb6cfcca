/*-------------------------------------------------------------------------
 *
 * size_text.c
 *	  Sizes as the guard's messages show them: "2.1 GB", "512 MB", "900 kB";
 *	  and a figure and the setting it is compared with, told apart where
 *	  both would read the same.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "guard/size_text.h"

char *
size_text(int64 bytes)
{
	if (bytes >= INT64CONST(1024) * 1024 * 1024)
		return psprintf("%.1f GB", (double) bytes / (1024.0 * 1024 * 1024));
	if (bytes >= 1024 * 1024)
		return psprintf("%.0f MB", (double) bytes / (1024.0 * 1024));
	return psprintf("%.0f kB", (double) bytes / 1024.0);
}

/*
 * A figure and the setting it is compared with, as size_text shows them, but
 * told apart: where both would read the same ("300 MB fell below ... (300
 * MB)"), both get as many decimals as it takes in their common unit (up to
 * three), or else are shown in bytes.
 */
void
size_texts_apart(int64 figure, int64 setting, char **figure_text, char **setting_text)
{
	double		unit = 1024.0;
	const char *unit_name = "kB";

	*figure_text = size_text(figure);
	*setting_text = size_text(setting);
	if (figure == setting || strcmp(*figure_text, *setting_text) != 0)
		return;
	if (Max(figure, setting) >= INT64CONST(1024) * 1024 * 1024)
	{
		unit = 1024.0 * 1024 * 1024;
		unit_name = "GB";
	}
	else if (Max(figure, setting) >= 1024 * 1024)
	{
		unit = 1024.0 * 1024;
		unit_name = "MB";
	}
	for (int decimals = 1; decimals <= 3; decimals++)
	{
		*figure_text = psprintf("%.*f %s", decimals, (double) figure / unit, unit_name);
		*setting_text = psprintf("%.*f %s", decimals, (double) setting / unit, unit_name);
		if (strcmp(*figure_text, *setting_text) != 0)
			return;
	}
	*figure_text = psprintf(INT64_FORMAT " bytes", figure);
	*setting_text = psprintf(INT64_FORMAT " bytes", setting);
}
