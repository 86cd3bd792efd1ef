# timeout: 450
# session 13's final call (device time short): gpu label, the MoE and W4A8 rows, Humming's moe and quant beside
OUT=$R BUDGET=440 ROWS="moe moe-gateup moe-down w4a8mx" HUMMING="moe quant" bash bench/sweeps/show.sh build
build/runtime/hum info > $R/info.txt 2>&1
