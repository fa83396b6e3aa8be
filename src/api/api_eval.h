/* fcast_eval_file's two forms (fcast.h): the request checked by
 * api_eval_run.c, the model form in api_eval_model.c, the file forms in
 * api_eval_files.c. Messages name the request's fields as flags
 * ("--train"); fcast_eval_file rewrites them (fc_api_words). */
#ifndef FC_API_EVAL_H
#define FC_API_EVAL_H

#include "fcast.h"

/* --model: forecasts made here, scored next to seasonal naive. */
fc_status fc_api_eval_model(const fcast_eval_request *r);

/* --cv or --forecasts: every model column of the file, with baselines. */
fc_status fc_api_eval_scores_file(const fcast_eval_request *r);

#endif
