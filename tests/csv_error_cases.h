/* Malformed CSV inputs and what their error message must contain, shared
 * by the in-memory loader's test (test_csv.c) and the streaming loader's
 * (test_dataset_stream.c), which must report the same faults alike. */
#ifndef FC_TESTS_CSV_ERROR_CASES_H
#define FC_TESTS_CSV_ERROR_CASES_H

typedef struct {
    const char *what;
    const char *csv;
    const char *freq;
    const char *needles[4];  /* all must appear in the message */
} error_case;

static const error_case error_cases[] = {
    {"missing column", "unique_id,ds,value\na,1,2\n", NULL,
     {"bad.csv:1:", "missing column 'y'", "'unique_id', 'ds', 'value'", "expected"}},
    {"missing unique_id", "id,ds,y\na,1,2\n", NULL, {"bad.csv:1:", "missing column 'unique_id'", "'id'"}},
    {"non-numeric y", "unique_id,ds,y\na,1,2\na,2,abc\n", NULL,
     {"bad.csv:3:", "column 'y' (3)", "'abc' is not a number", "expected"}},
    {"non-numeric exog", "unique_id,ds,y,price\na,1,2,3\na,2,3,1.2.3\n", NULL,
     {"bad.csv:3:", "column 'price' (4)", "'1.2.3'"}},
    {"CRLF line numbers", "unique_id,ds,y\r\na,1,1\r\n\r\na,2,x\r\n", NULL, {"bad.csv:4:", "column 'y' (3)", "'x'"}},
    {"CR line numbers", "unique_id,ds,y\ra,1,1\ra,2,x\r", NULL, {"bad.csv:3:", "column 'y' (3)"}},
    {"infinite y", "unique_id,ds,y\na,1,inf\n", NULL, {"bad.csv:2:", "column 'y' (3)", "infinite"}},
    {"y beyond double", "unique_id,ds,y\na,1,1\na,2,-1e999\n", NULL, {"bad.csv:3:", "column 'y' (3)", "finite"}},
    {"y beyond float", "unique_id,ds,y\na,1,1\na,2,3.5e38\n", NULL,
     {"bad.csv:3:", "column 'y' (3)", "'3.5e38'", "beyond the float range"}},
    {"negative y beyond float, long digits", "unique_id,ds,y\na,1,1\na,2,-340282356779733661637539395458142568448\n",
     NULL, {"bad.csv:3:", "column 'y' (3)", "-3402823567797336616", "beyond the float range"}},
    {"exog beyond float", "unique_id,ds,y,price\na,1,1,2\na,2,1,-1e300\n", NULL,
     {"bad.csv:3:", "column 'price' (4)", "'-1e300'", "beyond the float range"}},
    {"duplicate", "unique_id,ds,y\na,1,1\nb,1,1\na,1,2\n", NULL,
     {"bad.csv:4:", "column 'ds' (2)", "duplicate (unique_id, ds) = ('a', 1)", "line 2"}},
    {"unparsable date", "unique_id,ds,y\na,2000-01-01,1\na,2000-13-01,2\n", NULL,
     {"bad.csv:3:", "column 'ds' (2)", "'2000-13-01'", "expected an integer index"}},
    {"no such day", "ds,unique_id,y\n2001-02-29,a,1\n", NULL, {"bad.csv:2:", "column 'ds' (1)"}},
    {"bad datetime", "unique_id,ds,y\na,2000-01-01 25:00,1\n", NULL, {"bad.csv:2:", "column 'ds'", "'2000-01-01 25:00'"}},
    {"mixed kinds", "unique_id,ds,y\na,2000-01-01,1\na,2000-01-02 00:30,2\n", NULL,
     {"bad.csv:3:", "column 'ds' (2)", "datetime", "line 2 has a date"}},
    {"index then date", "unique_id,ds,y\na,1,1\na,2000-01-02,2\n", NULL, {"bad.csv:3:", "column 'ds'", "integer index"}},
    {"empty file", "", NULL, {"bad.csv:1:", "empty file", "unique_id, ds and y"}},
    {"blank lines only", "\n\r\n\n", NULL, {"bad.csv:1:", "empty file"}},
    {"header only", "unique_id,ds,y\n", NULL, {"bad.csv:2:", "no data rows", "line 1"}},
    {"header and blank lines", "unique_id,ds,y\r\n\r\n\r\n", NULL, {"bad.csv:2:", "no data rows"}},
    {"too few fields", "unique_id,ds,y\na,1,1\na,2\n", NULL,
     {"bad.csv:3:", "column 'y' (3)", "2 fields", "3 columns"}},
    {"too many fields", "unique_id,ds,y\na,1,1,\n", NULL,
     {"bad.csv:2:", "4 fields", "unexpected field 4 after column 'y' (3)"}},
    {"unterminated quote", "unique_id,ds,y\na,1,1\n\"abc,2,3\n", NULL,
     {"bad.csv:3:", "column 'unique_id' (1)", "unterminated quoted field", "expected a closing"}},
    {"text after quote", "unique_id,ds,y\n\"a\"b,1,1\n", NULL, {"bad.csv:2:", "column 'unique_id' (1)", "after a closing quote"}},
    {"empty unique_id", "unique_id,ds,y\na,1,1\n,2,2\n", NULL, {"bad.csv:3:", "column 'unique_id' (1)", "empty unique_id"}},
    {"pandas index column", ",unique_id,ds,y\n0,a,1,1\n", NULL, {"bad.csv:1:", "column '' (1)", "index=False"}},
    {"repeated column", "unique_id,ds,y,y\na,1,1,1\n", NULL, {"bad.csv:1:", "column 'y' (4)", "column 3"}},
    {"off grid datetime", "unique_id,ds,y\nt,2000-01-01 10:00,1\nt,2000-01-01 10:30,2\nt,2000-01-01 11:00,3\nt,2000-01-01 11:15,4\n",
     "30min", {"bad.csv:5:", "column 'ds' (2)", "2000-01-01 11:15:00 is off the 30min grid", "line 4"}},
    {"off grid index", "unique_id,ds,y\nu,0,1\nu,2,1\nu,4,1\nu,7,1\n", NULL,
     {"bad.csv:5:", "column 'ds' (2)", "off the 2 grid of series 'u'"}},
    {"off grid month", "unique_id,ds,y\nm,2000-01-01,1\nm,2000-02-01,1\nm,2000-02-15,1\n", "MS",
     {"bad.csv:4:", "column 'ds' (2)", "off the MS grid"}},
    {"not a month start", "unique_id,ds,y\nm,2000-01-15,1\nm,2000-02-15,1\n", "MS",
     {"bad.csv:2:", "column 'ds' (2)", "first day of a month"}},
    {"huge gap", "unique_id,ds,y\ng,1,1\ng,2,1\ng,100000000000,2\n", NULL,
     {"bad.csv:4:", "column 'ds' (2)", "too far", "line 3"}},
    {"unknown freq", "unique_id,ds,y\na,2000-01-01,1\n", "fortnight",
     {"bad.csv", "unknown frequency 'fortnight'", "[n]MS", "[n]min"}},
    {"date freq on index", "unique_id,ds,y\na,1,1\na,2,2\n", "D", {"bad.csv", "integer index"}},
    {"single-row series", "unique_id,ds,y\na,1,1\nb,5,2\n", NULL, {"bad.csv:2:", "column 'ds'", "cannot infer the frequency"}},
};

#endif
