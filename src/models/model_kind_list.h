/* The model kinds: one row each, the whole of a kind's registration
 * (docs/models.md). Every place that lists kinds expands this file with
 * its own FC_MODEL_KIND, so a row added here is a value of fc_model_kind
 * (model.h), the declarations of its entries and its option rows
 * (model_kinds.h), its row of the table (model_kinds.c), its --model
 * name, its architecture flags and its Python class's name at once.
 *
 *   FC_MODEL_KIND(prefix, ENUM, "Name", num_lr_decays, exog bits,
 *                 "scaler", windows_batch_size, learning_rate, max_steps)
 *
 * prefix: --model's name and the prefix of the kind's functions in
 * src/models/<prefix>.c; ENUM: FC_MODEL_<ENUM>; Name: neuralforecast's
 * class (model files, forecast columns, Python's class); the rest are
 * neuralforecast's training defaults for the model (model_kinds.h).
 * The order is the enum's and that of the architecture flags in --help:
 * a new kind goes last, so that no model file or flag moves.
 *
 * No include guard: each includer defines FC_MODEL_KIND first. */
FC_MODEL_KIND(nhits, NHITS, "NHITS", 3, FC_EXOG_ALL, "identity", 1024, 1e-3, 1000)
FC_MODEL_KIND(nbeats, NBEATS, "NBEATS", 3, FC_EXOG_NONE, "identity", 1024, 1e-3, 1000)
FC_MODEL_KIND(mlp, MLP, "MLP", -1, FC_EXOG_ALL, "identity", 1024, 1e-3, 1000)
FC_MODEL_KIND(nbeatsx, NBEATSX, "NBEATSx", 3, FC_EXOG_ALL, "identity", 1024, 1e-3, 1000)
FC_MODEL_KIND(lstm, LSTM, "LSTM", -1, FC_EXOG_ALL, "robust", 128, 1e-3, 1000)
FC_MODEL_KIND(tide, TIDE, "TiDE", -1, FC_EXOG_ALL, "identity", 1024, 1e-3, 1000)
FC_MODEL_KIND(patchtst, PATCHTST, "PatchTST", -1, FC_EXOG_NONE, "identity", 1024, 1e-4, 5000)
