	.file	"<string>"
	.section	.rodata.cst8,"aM",@progbits,8
	.p2align	3, 0x0
.LCPI0_0:
	.quad	-8608480567731124088
	.section	.rodata.cst32,"aM",@progbits,32
	.p2align	5, 0x0
.LCPI0_1:
	.zero	32,1
	.section	.rodata.cst16,"aM",@progbits,16
	.p2align	4, 0x0
.LCPI0_2:
	.zero	16,1
	.section	.ltext,"axl",@progbits
	.globl	_ZN9swarbench6suites5cards6jitted13contains_swarB2v1B40c8tJTIeFIjxB2IKSgI4CrvQClQZ6FcpCShpgEU0AE5ArrayIyLi1E1C8readonly7alignedE5ArrayIyLi1E1C8readonly7alignedE5ArrayIbLi1E1C7mutable7alignedE
	.p2align	4
	.type	_ZN9swarbench6suites5cards6jitted13contains_swarB2v1B40c8tJTIeFIjxB2IKSgI4CrvQClQZ6FcpCShpgEU0AE5ArrayIyLi1E1C8readonly7alignedE5ArrayIyLi1E1C8readonly7alignedE5ArrayIbLi1E1C7mutable7alignedE,@function
_ZN9swarbench6suites5cards6jitted13contains_swarB2v1B40c8tJTIeFIjxB2IKSgI4CrvQClQZ6FcpCShpgEU0AE5ArrayIyLi1E1C8readonly7alignedE5ArrayIyLi1E1C8readonly7alignedE5ArrayIbLi1E1C7mutable7alignedE:
	pushq	%rbp
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%rbx
	pushq	%rax
	movq	144(%rsp), %r14
	movq	176(%rsp), %r13
	movq	160(%rsp), %r15
	movq	152(%rsp), %r12
	movq	72(%rsp), %rbp
	movabsq	$NRT_incref, %rax
	movq	%rdi, %rbx
	movq	%r14, %rdi
	callq	*%rax
	testq	%rbp, %rbp
	jle	.LBB0_19
	movq	120(%rsp), %rax
	movq	64(%rsp), %rcx
	cmpq	$8, %rbp
	jae	.LBB0_3
	xorl	%edx, %edx
.LBB0_14:
	movq	%rbp, %r8
	movabsq	$-8608480567731124088, %rsi
	andq	$7, %r8
	movq	%rdx, %rdi
	je	.LBB0_17
	movq	%rdx, %rdi
	.p2align	4
.LBB0_16:
	movq	(%rcx,%rdi,8), %r9
	orq	%rsi, %r9
	subq	(%rax,%rdi,8), %r9
	andnq	%rsi, %r9, %r9
	sete	(%r13,%rdi)
	incq	%rdi
	decq	%r8
	jne	.LBB0_16
.LBB0_17:
	subq	%rbp, %rdx
	cmpq	$-8, %rdx
	ja	.LBB0_19
	.p2align	4
.LBB0_18:
	movq	(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	(%r13,%rdi)
	movq	8(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	8(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	1(%r13,%rdi)
	movq	16(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	16(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	2(%r13,%rdi)
	movq	24(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	24(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	3(%r13,%rdi)
	movq	32(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	32(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	4(%r13,%rdi)
	movq	40(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	40(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	5(%r13,%rdi)
	movq	48(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	48(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	6(%r13,%rdi)
	movq	56(%rcx,%rdi,8), %rdx
	orq	%rsi, %rdx
	subq	56(%rax,%rdi,8), %rdx
	andnq	%rsi, %rdx, %rdx
	sete	7(%r13,%rdi)
	addq	$8, %rdi
	cmpq	%rdi, %rbp
	jne	.LBB0_18
.LBB0_19:
	movq	168(%rsp), %rax
	movq	%r14, (%rbx)
	movq	%r12, 8(%rbx)
	movq	%r15, 16(%rbx)
	movq	%rax, 24(%rbx)
	movq	184(%rsp), %rax
	movq	%r13, 32(%rbx)
	movq	%rax, 40(%rbx)
	movq	192(%rsp), %rax
	movq	%rax, 48(%rbx)
	xorl	%eax, %eax
	addq	$8, %rsp
	popq	%rbx
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	popq	%rbp
	vzeroupper
	retq
.LBB0_3:
	leaq	(%rcx,%rbp,8), %rsi
	leaq	(%r13,%rbp), %rdx
	leaq	(%rax,%rbp,8), %rdi
	cmpq	%rsi, %r13
	setb	%r8b
	cmpq	%rdx, %rcx
	setb	%r9b
	cmpq	%rdi, %r13
	setb	%sil
	cmpq	%rdx, %rax
	setb	%dil
	xorl	%edx, %edx
	testb	%r9b, %r8b
	jne	.LBB0_14
	andb	%dil, %sil
	jne	.LBB0_14
	movabsq	$9223372036854775776, %rsi
	movabsq	$.LCPI0_0, %rdi
	cmpq	$32, %rbp
	jae	.LBB0_7
	xorl	%edx, %edx
	jmp	.LBB0_11
.LBB0_7:
	movabsq	$.LCPI0_1, %r9
	vpbroadcastq	(%rdi), %zmm0
	movq	%rbp, %rdx
	andq	%rsi, %rdx
	xorl	%r8d, %r8d
	vmovdqa	(%r9), %ymm1
	.p2align	4
.LBB0_8:
	vporq	(%rcx,%r8,8), %zmm0, %zmm2
	vporq	64(%rcx,%r8,8), %zmm0, %zmm3
	vporq	128(%rcx,%r8,8), %zmm0, %zmm4
	vporq	192(%rcx,%r8,8), %zmm0, %zmm5
	vpsubq	(%rax,%r8,8), %zmm2, %zmm2
	vpsubq	64(%rax,%r8,8), %zmm3, %zmm3
	vpsubq	128(%rax,%r8,8), %zmm4, %zmm4
	vpsubq	192(%rax,%r8,8), %zmm5, %zmm5
	vpandq	%zmm0, %zmm2, %zmm2
	vpandq	%zmm0, %zmm3, %zmm3
	vpandq	%zmm0, %zmm4, %zmm4
	vpandq	%zmm0, %zmm5, %zmm5
	vpcmpeqq	%zmm0, %zmm2, %k0
	vpcmpeqq	%zmm0, %zmm3, %k1
	vpcmpeqq	%zmm0, %zmm4, %k2
	vpcmpeqq	%zmm0, %zmm5, %k3
	kunpckwd	%k2, %k3, %k2
	kunpckwd	%k0, %k1, %k1
	vmovdqu8	%ymm1, %ymm2 {%k2} {z}
	vmovdqu8	%ymm1, %ymm3 {%k1} {z}
	vpunpcklqdq	%ymm2, %ymm3, %ymm2
	vpermq	$216, %ymm2, %ymm2
	vmovdqu	%ymm2, (%r13,%r8)
	addq	$32, %r8
	cmpq	%r8, %rdx
	jne	.LBB0_8
	cmpq	%rdx, %rbp
	je	.LBB0_19
	testb	$24, %bpl
	je	.LBB0_14
.LBB0_11:
	vpbroadcastq	(%rdi), %zmm0
	addq	$24, %rsi
	movq	%rdx, %r8
	movq	%rsi, %rdx
	andq	%rbp, %rdx
	movabsq	$.LCPI0_2, %rsi
	.p2align	4
.LBB0_12:
	vporq	(%rcx,%r8,8), %zmm0, %zmm1
	vpsubq	(%rax,%r8,8), %zmm1, %zmm1
	vpandq	%zmm0, %zmm1, %zmm1
	vpcmpeqq	%zmm0, %zmm1, %k1
	vmovdqu8	(%rsi), %xmm1 {%k1} {z}
	vmovq	%xmm1, (%r13,%r8)
	addq	$8, %r8
	cmpq	%r8, %rdx
	jne	.LBB0_12
	cmpq	%rdx, %rbp
	jne	.LBB0_14
	jmp	.LBB0_19
.Lfunc_end0:
	.size	_ZN9swarbench6suites5cards6jitted13contains_swarB2v1B40c8tJTIeFIjxB2IKSgI4CrvQClQZ6FcpCShpgEU0AE5ArrayIyLi1E1C8readonly7alignedE5ArrayIyLi1E1C8readonly7alignedE5ArrayIbLi1E1C7mutable7alignedE, .Lfunc_end0-_ZN9swarbench6suites5cards6jitted13contains_swarB2v1B40c8tJTIeFIjxB2IKSgI4CrvQClQZ6FcpCShpgEU0AE5ArrayIyLi1E1C8readonly7alignedE5ArrayIyLi1E1C8readonly7alignedE5ArrayIbLi1E1C7mutable7alignedE
