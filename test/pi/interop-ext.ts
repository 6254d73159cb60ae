// Extension used by the session interop tests (internal/pitest) to make
// real pi write every entry type: tree navigation with branch summaries,
// labels, custom entries and custom messages.
export default function (pi: any) {
	const words = (args: string) => args.trim().split(/\s+/).filter(Boolean);

	// /nav ID [summarize]: move the leaf (ctx.navigateTree), optionally
	// summarising the branch left behind.
	pi.registerCommand("nav", {
		description: "navigate the session tree",
		handler: async (args: string, ctx: any) => {
			const [id, mode] = words(args);
			await ctx.navigateTree(id, { summarize: mode === "summarize" });
		},
	});

	// /label ID [TEXT...]: set (or clear) a label.
	pi.registerCommand("label", {
		description: "label an entry",
		handler: async (args: string) => {
			const [id, ...rest] = words(args);
			pi.setLabel(id, rest.length ? rest.join(" ") : undefined);
		},
	});

	// /note TEXT: a custom entry (extension state).
	pi.registerCommand("note", {
		description: "append a custom entry",
		handler: async (args: string) => {
			pi.appendEntry("interop/note", { text: args.trim() });
		},
	});

	// /inject TEXT: a custom message, part of the next turn's context.
	pi.registerCommand("inject", {
		description: "queue a custom message",
		handler: async (args: string) => {
			pi.sendMessage({ customType: "interop/msg", content: args.trim(), display: true, details: { from: "interop" } }, { deliverAs: "nextTurn" });
		},
	});
}
