# timeout: 140
# issue 10's remaining Show at the final commit: hum demo --moe, hum info under moe.activation mxfp8, the MoE row it changes
H=build/runtime/hum
timeout 60 $H demo --moe > $R/demo-moe.txt 2>&1; echo "exit $?" >> $R/demo-moe.txt
printf 'overrides:\n  moe:\n    activation: mxfp8\n' > /tmp/mx.yaml
timeout 20 $H info --config /tmp/mx.yaml --moe e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128 > $R/info-mxfp8.txt 2>&1; echo "exit $?" >> $R/info-mxfp8.txt
timeout 50 $H bench --config /tmp/mx.yaml --moe e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128 --m 1,128,1024 --warmup 10 --reps 50 > $R/moe-mxfp8.txt 2>&1; echo "exit $?" >> $R/moe-mxfp8.txt
