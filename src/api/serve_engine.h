/* The engine as `fcast serve` sees it: the one internal interface serve/
 * may include besides core/ and the public API (tests/layers.py holds it to
 * that). The server batches requests of many clients into one forward pass
 * and answers in the CLI's own formats, so it works on the engine's data
 * and forecaster types rather than on fcast.h's whole-run calls; this header
 * names that surface, folder by folder, so that a new dependency of the
 * server is a line here, seen in review, and not an include in serve/. */
#ifndef FC_API_SERVE_ENGINE_H
#define FC_API_SERVE_ENGINE_H

/* The device: opening the backend of a run, and its handle (registry). */
#include "api/api_backend.h"
#include "backend/backend.h"

/* Request bodies: the long-format table (fc_dataset), reading CSV text from
 * a buffer, ds values and frequencies, future dates, the token file. */
#include "data/csv_reader.h"
#include "data/dataset.h"
#include "data/ds_text.h"
#include "data/freq.h"
#include "data/raw_table.h"
#include "data/text_map.h"

/* Answers written as the CLI writes its forecast CSV. */
#include "io/csv_write.h"
#include "io/forecast_csv.h"

/* Models: loading, the forecast itself, its columns and intervals, and the
 * memory a batch of windows takes (the server's memory plan). Ensemble
 * files (fcast ensemble) are served too: recognising and loading one, and
 * its members' forecasts combined as fcast predict combines them. */
#include "train/batch.h"
#include "train/conformal.h"
#include "train/ensemble.h"
#include "train/ensemble_file.h"
#include "train/forecast_columns.h"
#include "train/forecaster.h"
#include "train/memory_plan.h"
#include "train/model_file.h"

/* /v1/quant: indicators and option prices as `fcast quant` computes them. */
#include "quant/indicators.h"
#include "quant/quant_request.h"

/* /metrics: GPU samples. */
#include "monitor/gpu_monitor.h"

#endif
