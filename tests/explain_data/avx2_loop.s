.Lloop:
	vpor -0x20(%r8,%rax,8),%ymm1,%ymm0
	vpsubq -0x20(%rdi,%rax,8),%ymm0,%ymm0
	vpand %ymm1,%ymm0,%ymm0
	vpcmpeqq %ymm1,%ymm0,%ymm0
	vmovmskpd %ymm0,%edx
	mov (%r9,%rdx,4),%edx
	mov %edx,-0x4(%rsi,%rax,1)
	add $0x4,%rax
	cmp %rax,%rcx
	jae .Lloop
