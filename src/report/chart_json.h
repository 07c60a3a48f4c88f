/*
 * chart_json.h
 *		The jsonb chart spec reader (chart_json.c): a spec, as ranread_svg
 *		takes it (docs/charts-and-reports.md, "Charts from SQL"), drawn by the
 *		renderer.
 */
#ifndef RANREAD_CHART_JSON_H
#define RANREAD_CHART_JSON_H

#include "utils/jsonb.h"

/* The SVG document of a spec; an error names the key of a bad value */
extern text *ranread_chart_json_draw(Jsonb *spec);

#endif							/* RANREAD_CHART_JSON_H */
