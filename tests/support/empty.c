/* Keeps hum_test_support non-empty before any helper exists. */
