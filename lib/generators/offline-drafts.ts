import {
  capitalize,
  hashtag,
  keywordsOf,
  sentences,
  shorten,
  squash,
  subjectOf,
  titleCase,
  topicOf,
  type Random,
} from './prompt-text.js';

/** What a draft is written from. */
export interface DraftContext {
  /** The prompt as given. */
  prompt: string;
  /** What the prompt is about, as a phrase. */
  topic: string;
  /** Significant words of the prompt, most frequent first; never empty. */
  keywords: string[];
  /** Seeded by prompt, template and creativity. */
  random: Random;
}

/** Writes one kind of text. */
export type DraftWriter = (context: DraftContext) => string;

/** Builds the {@link DraftContext} of a prompt. */
export function draftContext(prompt: string, random: Random): DraftContext {
  const topic = topicOf(prompt);
  const keywords = keywordsOf(subjectOf(prompt));
  return { prompt, topic, keywords: keywords.length > 0 ? keywords : [topic.toLowerCase()], random };
}

const key = (c: DraftContext, index: number): string => c.keywords[index % c.keywords.length] as string;

function paragraph(c: DraftContext, focus: string): string {
  const r = c.random;
  return [
    r.pick([
      `${capitalize(focus)} matters more than it first appears.`,
      `When it comes to ${focus}, the details make the difference.`,
      `${capitalize(focus)} deserves a closer look.`,
    ]),
    r.pick([
      `Start with what people actually need from ${key(c, 0)}, and let that guide every decision.`,
      `The best results come from treating ${key(c, 0)} as a practical question rather than an abstract one.`,
      `A clear view of ${key(c, 0)} helps you avoid the most common mistakes.`,
    ]),
    r.pick([
      `Pay attention to ${key(c, 1)} and ${key(c, 2)}, because that is where small changes have the largest effect.`,
      `Looking at ${key(c, 1)} alongside ${key(c, 2)} shows what works and what can wait.`,
      `Keep ${key(c, 1)} simple and measure how ${key(c, 2)} changes over time.`,
    ]),
    r.pick([
      `Done well, it saves time and builds trust.`,
      `The payoff is steady, visible progress.`,
      `Small, consistent steps add up quickly.`,
    ]),
  ].join(' ');
}

function sectionTitles(c: DraftContext): string[] {
  return [
    `What ${c.topic} means`,
    `Why ${key(c, 0)} matters`,
    `How to get started with ${key(c, 1)}`,
    `Common mistakes with ${key(c, 2)}`,
  ];
}

function title(c: DraftContext): string {
  return titleCase(shorten(c.topic, 70));
}

function prose(paragraphs: number): DraftWriter {
  return (c) => Array.from({ length: paragraphs }, (_, i) => paragraph(c, i === 0 ? c.topic : key(c, i))).join('\n\n');
}

function article(c: DraftContext): string {
  return [
    `# ${title(c)}`,
    paragraph(c, c.topic),
    ...sectionTitles(c).flatMap((heading, i) => [`## ${capitalize(heading)}`, paragraph(c, key(c, i))]),
    '## Conclusion',
    `${capitalize(c.topic)} rewards a steady, practical approach. Focus on ${key(c, 0)}, keep an eye on ${key(c, 1)}, and adjust as you learn.`,
  ].join('\n\n');
}

function outline(c: DraftContext): string {
  const sections = ['Introduction', ...sectionTitles(c).map(capitalize), 'Conclusion'];
  const points = (i: number): string[] =>
    i === 0
      ? [`Hook: why ${c.topic} matters now`, 'What the reader will learn']
      : i === sections.length - 1
        ? ['Summary of the key points', `Call to action about ${key(c, 0)}`]
        : [`Key idea about ${key(c, i)}`, `Example or data point on ${key(c, i + 1)}`, 'Practical tip'];
  return [
    `Outline: ${title(c)}`,
    '',
    ...sections.flatMap((section, i) => [`${i + 1}. ${section}`, ...points(i).map((p) => `   - ${p}`)]),
  ].join('\n');
}

function bullets(c: DraftContext, count: number): string[] {
  return [
    `Why ${key(c, 0)} matters for ${c.topic}`,
    `The role of ${key(c, 1)}`,
    `How ${key(c, 2)} changes the picture`,
    `A simple first step with ${key(c, 0)}`,
    `Mistakes to avoid with ${key(c, 1)}`,
    `Measuring progress on ${key(c, 2)}`,
    `Tools and resources for ${key(c, 3)}`,
  ].slice(0, count);
}

function linesUnder(max: number, lines: string[]): string {
  return lines.map((line) => shorten(line, max)).join('\n');
}

/** Five titles of at most `max` characters. */
function titles(max: number): DraftWriter {
  return (c) =>
    linesUnder(
      max,
      [
        `${title(c)}: A Practical Guide`,
        `How to Get ${titleCase(key(c, 0))} Right`,
        `7 Things to Know About ${titleCase(key(c, 0))}`,
        `The Simple Way to Improve ${titleCase(key(c, 1))}`,
        `Why ${titleCase(key(c, 0))} Matters More Than You Think`,
        `${titleCase(key(c, 1))} Made Easy`,
      ]
        .map((line) => ({ line, order: c.random.next() }))
        .sort((a, b) => a.order - b.order)
        .map(({ line }) => line)
        .slice(0, 5),
    );
}

function commaList(c: DraftContext, count: number): string[] {
  const phrases = [...c.keywords, ...c.keywords.flatMap((phrase) => (phrase.includes(' ') ? phrase.split(' ') : []))];
  for (const extra of ['guide', 'tips', 'ideas', 'how to', 'best practices', 'examples', 'for beginners']) {
    if (phrases.length >= count) break;
    phrases.push(`${key(c, 0)} ${extra}`);
  }
  return [...new Set(phrases.map((p) => p.toLowerCase()))].slice(0, count);
}

function hashtags(c: DraftContext, count: number): string[] {
  const tags = commaList(c, count + 4).map(hashtag);
  return [...new Set(tags)].filter((tag) => tag.length > 1).slice(0, count);
}

function tweet(c: DraftContext): string {
  const text = c.random.pick([
    `${capitalize(c.topic)}: here is what matters most. Focus on ${key(c, 0)}, keep ${key(c, 1)} simple, and measure what changes.`,
    `Thinking about ${c.topic}? Start small with ${key(c, 0)} and build from there.`,
    `${capitalize(c.topic)}. The secret is ${key(c, 0)}, done consistently.`,
  ]);
  const tags = hashtags(c, 2).join(' ');
  return Array.from(`${shorten(text, 279 - tags.length - 1)} ${tags}`.trim())
    .slice(0, 280)
    .join('');
}

/** `text` with each word that `replacements` lists (in lower case) replaced, a capital kept. */
function replaceWords(text: string, replacements: Record<string, string>): string {
  return text.replace(/\p{L}+/gu, (word) => {
    const replacement = replacements[word.toLowerCase()];
    if (replacement === undefined) return word;
    return word[0] === word[0]?.toUpperCase() ? capitalize(replacement) : replacement;
  });
}

function rewrite(c: DraftContext): string {
  const synonyms: Record<string, string> = {
    big: 'large',
    small: 'little',
    fast: 'quick',
    quick: 'fast',
    good: 'great',
    great: 'excellent',
    bad: 'poor',
    important: 'essential',
    help: 'assist',
    helps: 'assists',
    use: 'employ',
    make: 'create',
    makes: 'creates',
    show: 'demonstrate',
    shows: 'demonstrates',
    start: 'begin',
    starts: 'begins',
    buy: 'purchase',
    need: 'require',
    needs: 'requires',
    get: 'obtain',
    easy: 'simple',
    simple: 'straightforward',
    hard: 'difficult',
    many: 'numerous',
    often: 'frequently',
    also: 'additionally',
    but: 'however,',
    very: 'highly',
    improve: 'enhance',
    improves: 'enhances',
    change: 'alter',
    try: 'attempt',
    end: 'finish',
    keep: 'maintain',
    think: 'believe',
    people: 'individuals',
  };
  const text = replaceWords(sentences(c.prompt).join(' '), synonyms);
  return text === squash(c.prompt) ? `In other words: ${text}` : text;
}

function summary(c: DraftContext): string {
  const all = sentences(c.prompt);
  if (all.length <= 1) return `In short: ${capitalize(c.topic)}.`;
  const score = (s: string): number => c.keywords.slice(0, 5).reduce((n, k) => n + (s.toLowerCase().includes(k) ? 1 : 0), 0);
  const keep = Math.max(1, Math.min(3, Math.ceil(all.length / 3)));
  const chosen = all
    .map((s, i) => ({ s, i, score: score(s) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, keep)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.s);
  return `Summary: ${chosen.join(' ')}`;
}

function grammar(c: DraftContext): string {
  const fixes: Record<string, string> = {
    teh: 'the',
    recieve: 'receive',
    definately: 'definitely',
    seperate: 'separate',
    occured: 'occurred',
    untill: 'until',
    wich: 'which',
    alot: 'a lot',
    dont: "don't",
    cant: "can't",
    wont: "won't",
    doesnt: "doesn't",
    isnt: "isn't",
    im: "I'm",
    thier: 'their',
    becuase: 'because',
    beleive: 'believe',
    goverment: 'government',
    tommorow: 'tomorrow',
  };
  const spaced = squash(c.prompt)
    .replace(/\b(\p{L}+) \1\b/giu, '$1')
    .replace(/\s+([,.;:!?])/gu, '$1')
    .replace(/([,;:!?])(?=\p{L})/gu, '$1 ')
    .replace(/\.(?=\p{Lu})/gu, '. ');
  let text = replaceWords(spaced, fixes)
    .replace(/\bi\b/gu, 'I')
    .replace(/(^|[.!?]\s+)(\p{Ll})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
  if (!/[.!?…"')\]]$/u.test(text)) text += '.';
  return text;
}

function names(c: DraftContext, count: number): string[] {
  const words = [...new Set(c.keywords.flatMap((phrase) => phrase.split(' ')))];
  const roots = words.map((word) => capitalize(word.replace(/[^\p{L}\p{N}]/gu, '').slice(0, 8))).filter(Boolean);
  const suffixes = ['ly', 'ify', 'Hub', 'Lab', 'io', 'Works', 'Nest', 'Spark', 'Base', 'Flow', 'Path', 'Wise'];
  const out = new Set<string>();
  for (let i = 0; out.size < count && i < count * 6; i += 1) {
    const root = roots[i % roots.length] ?? 'Bright';
    out.add(`${root}${suffixes[(i * 7 + Math.floor(c.random.next() * suffixes.length)) % suffixes.length]}`);
  }
  return [...out];
}

const WRITERS: Record<string, DraftWriter> = {
  Freestyle: prose(3),
  'About us': (c) =>
    [
      `About us`,
      '',
      `We are a team focused on ${c.topic}. We started because we saw how much time people lose on ${key(c, 0)}, and we knew there was a better way.`,
      '',
      `Today we help customers with ${key(c, 1)} and ${key(c, 2)}, with tools that are simple to use and support from people who understand the work.`,
      '',
      `We believe in doing things properly: clear promises, honest advice, and results you can measure. That is why our customers stay with us.`,
    ].join('\n'),
  Advertisement: (c) =>
    [
      titleCase(`${shorten(c.topic, 50)}, made simple`),
      '',
      `Tired of struggling with ${key(c, 0)}? Get ${key(c, 1)} that works from day one, without the hassle.`,
      `Join the people who already save time every week.`,
      '',
      `Try it today.`,
    ].join('\n'),
  Article: article,
  'Blog intro': (c) =>
    `${paragraph(c, c.topic)}\n\nIn this post, we look at ${key(c, 0)}, ${key(c, 1)} and ${key(c, 2)}, and what you can do about each of them today.`,
  'Blog outline': outline,
  'Blog outro': (c) =>
    `${capitalize(c.topic)} does not have to be complicated. Focus on ${key(c, 0)}, keep ${key(c, 1)} in view, and improve a little each week. Ready to start? Pick one idea from this post and try it today, then tell us how it went in the comments.`,
  'Blog paragraph': prose(1),
  'Blog post': article,
  'Blog section': (c) =>
    `## ${capitalize(sectionTitles(c)[1] as string)}\n\n${paragraph(c, key(c, 0))}\n\n${paragraph(c, key(c, 1))}`,
  'Blog talking points': (c) =>
    bullets(c, 6)
      .map((b) => `- ${b}`)
      .join('\n'),
  'Blog title': titles(70),
  'Call to action': (c) =>
    linesUnder(60, [`Start with ${key(c, 0)} today`, `Get your free ${key(c, 1)} guide`, `Try it now: ${key(c, 0)} made easy`]),
  'Content rewrite': rewrite,
  'Content summary': summary,
  FAQ: (c) =>
    [
      [`What is ${c.topic}?`, `${capitalize(c.topic)} is about getting ${key(c, 0)} right, in a way that is simple to keep up.`],
      [`Who is it for?`, `Anyone who deals with ${key(c, 1)} and wants clear, repeatable results.`],
      [`How do I get started?`, `Begin with one small step on ${key(c, 0)}, then build on what works.`],
      [`How long does it take to see results?`, `Most people notice a difference within a few weeks of steady effort.`],
      [`What does it cost?`, `Getting started costs little; the main investment is your time and attention to ${key(c, 2)}.`],
    ]
      .map(([q, a]) => `Q: ${q}\nA: ${a}`)
      .join('\n\n'),
  Hashtags: (c) => hashtags(c, 10).join(' '),
  Headline: titles(80),
  'How it works': (c) =>
    [
      `1. Tell us what you need: describe your goals for ${key(c, 0)}.`,
      `2. Get a plan: we set up ${key(c, 1)} around the way you already work.`,
      `3. See results: track ${key(c, 2)} and adjust as you go.`,
    ].join('\n'),
  'Meta description': (c) => {
    const base = `${capitalize(shorten(c.topic, 80))}: learn about ${key(c, 0)} and ${key(c, 1)}, with practical tips, examples and next steps.`;
    return shorten(base.length < 140 ? `${base} Start today.` : base, 158).replace(/[,;:]$/u, '');
  },
  'Meta keywords': (c) => commaList(c, 10).join(', '),
  'Mission statement': (c) =>
    `Our mission is to make ${c.topic} simple, reliable and within reach for everyone who needs it. We do this by putting people first in everything we build around ${key(c, 0)}.`,
  Newsletter: (c) =>
    [
      `Subject: This month: ${shorten(c.topic, 60)}`,
      '',
      'Hi there,',
      '',
      paragraph(c, c.topic),
      '',
      `## ${capitalize(key(c, 0))}`,
      paragraph(c, key(c, 0)),
      '',
      `## ${capitalize(key(c, 1))}`,
      paragraph(c, key(c, 1)),
      '',
      'Thanks for reading, and see you next time.',
      'The team',
    ].join('\n'),
  'Pain-Agitate-Solution': (c) =>
    [
      `Pain: ${capitalize(key(c, 0))} takes more time and effort than it should.`,
      `Agitate: Every week it is left unsolved, ${key(c, 1)} suffers, deadlines slip and frustration grows.`,
      `Solution: ${capitalize(shorten(c.topic, 80))} with a simple, proven approach that puts you back in control.`,
    ].join('\n\n'),
  Paragraph: prose(1),
  'Press release': (c) =>
    [
      'FOR IMMEDIATE RELEASE',
      '',
      title(c),
      '',
      `CITY, DATE — ${capitalize(c.topic)}. The announcement focuses on ${key(c, 0)} and ${key(c, 1)}.`,
      '',
      paragraph(c, key(c, 0)),
      '',
      `"We are proud to share this news," said a company spokesperson. "It reflects our commitment to ${key(c, 1)}."`,
      '',
      `About the company`,
      `The company works on ${key(c, 2)} and serves customers who value quality and reliability.`,
      '',
      '###',
    ].join('\n'),
  'Social post': (c) =>
    `${capitalize(shorten(c.topic, 120))}. Here is our take: focus on ${key(c, 0)} first and the rest follows. What do you think? Tell us in the comments.\n\n${hashtags(c, 3).join(' ')}`,
  'Social post caption': (c) => `${capitalize(shorten(c.topic, 100))} ✨ All about ${key(c, 0)}.`,
  'Startup ideas': (c) =>
    names(c, 5)
      .map(
        (name, i) =>
          `${i + 1}. ${name}: ${[`a service that makes ${key(c, i)} effortless for small teams.`, `a marketplace connecting people who need ${key(c, i)} with experts.`, `an app that tracks ${key(c, i)} and suggests the next step.`, `a subscription that delivers ${key(c, i)} on demand.`, `a toolkit that automates the boring parts of ${key(c, i)}.`][i]}`,
      )
      .join('\n'),
  'Startup names': (c) => names(c, 10).join('\n'),
  Subheadline: (c) =>
    linesUnder(140, [
      `Everything you need for ${key(c, 0)}, in one place.`,
      `A simpler way to handle ${key(c, 1)}, built for ${c.topic}.`,
      `Spend less time on ${key(c, 0)} and more on what matters.`,
    ]),
  Testimonial: (c) =>
    `"Before, ${key(c, 0)} took us hours every week. Since we switched, ${key(c, 1)} is simply taken care of, and the whole team feels the difference. I recommend it to anyone working on ${shorten(c.topic, 60)}."\n\n— A happy customer`,
  Tweet: tweet,
  'Twitter thread': (c) =>
    [
      `${capitalize(shorten(c.topic, 200))}. A short thread 🧵`,
      `First: ${key(c, 0)}. Get this right and everything else gets easier.`,
      `Second: ${key(c, 1)}. Keep it simple and consistent.`,
      `Third: ${key(c, 2)}. Measure it, or you are guessing.`,
      `That's it. Start with one of these today. ${hashtags(c, 2).join(' ')}`,
    ]
      .map((t, i, all) => shorten(`${i + 1}/${all.length} ${t}`, 280))
      .join('\n\n'),
  'Value proposition': (c) =>
    [
      `${capitalize(shorten(c.topic, 90))}, without the hassle.`,
      '',
      `- Save time on ${key(c, 0)}`,
      `- Get better results from ${key(c, 1)}`,
      `- Stay in control of ${key(c, 2)}`,
    ].join('\n'),
  'Video description': (c) =>
    [
      `${capitalize(shorten(c.topic, 100))}: everything you need to know.`,
      '',
      paragraph(c, c.topic),
      '',
      "In this video you'll learn:",
      ...bullets(c, 4).map((b) => `- ${b}`),
      '',
      'If this helped, like the video and subscribe for more.',
    ].join('\n'),
  'Video script': (c) =>
    [
      `Scene 1 — Hook`,
      `Shown: a quick shot that sets up the problem.`,
      `Said: "Struggling with ${key(c, 0)}? In the next minute, you'll see a better way."`,
      '',
      `Scene 2 — The problem`,
      `Shown: everyday situations where ${key(c, 1)} goes wrong.`,
      `Said: "Most people lose time here, and it doesn't have to be that way."`,
      '',
      `Scene 3 — The solution`,
      `Shown: the steps, one by one.`,
      `Said: "${capitalize(shorten(c.topic, 120))}. Here is how it works."`,
      '',
      `Scene 4 — Call to action`,
      `Shown: the logo and a link.`,
      `Said: "Try it today, and subscribe for more."`,
    ].join('\n'),
  'Video tags': (c) => commaList(c, 15).join(', '),
  'Video title': titles(70),
  'Vision statement': (c) =>
    `We see a world where ${shorten(c.topic, 100)} is simple, fair and open to everyone, and where ${key(c, 0)} helps people do their best work.`,
  'Product sheet': (c) =>
    [
      title(c),
      '',
      'Overview',
      paragraph(c, c.topic),
      '',
      'Key features',
      `- ${capitalize(key(c, 0))} built in`,
      `- Works with ${key(c, 1)}`,
      `- Simple set-up and support`,
      '',
      'Specifications',
      `- Use: ${key(c, 2)}`,
      '- Availability: contact us',
    ].join('\n'),
  'Welcome email': (c) =>
    [
      `Subject: Welcome! Let's get you started with ${shorten(c.topic, 60)}`,
      '',
      'Hi there,',
      '',
      `Welcome aboard, and thank you for joining us. We built this for people who care about ${c.topic}, and we are glad you are here.`,
      '',
      `Here is what to do first:`,
      `1. Set up ${key(c, 0)} in a few minutes.`,
      `2. Explore ${key(c, 1)} and see what fits your needs.`,
      `3. Invite your team when you are ready.`,
      '',
      'If you have a question, just reply to this email: a real person reads every message.',
      '',
      'Welcome again,',
      'The team',
    ].join('\n'),
  'Push notification': (c) =>
    linesUnder(100, [
      `New: ${shorten(c.topic, 80)}. Take a look!`,
      `Don't miss out on ${key(c, 0)}: open the app now.`,
      `Your ${key(c, 1)} update is ready.`,
    ]),
  'Blog listicle': (c) =>
    [
      `# 7 Ways to Improve ${titleCase(shorten(c.topic, 60))}`,
      '',
      `${capitalize(c.topic)} is easier with a few good habits. Here are seven worth trying.`,
      '',
      ...bullets(c, 7).map((b, i) => `${i + 1}. ${b}. ${paragraph(c, key(c, i)).split('. ')[1] ?? ''}`.trim()),
    ].join('\n'),
  'Content grammar': grammar,
  'Blog tags': (c) => commaList(c, 8).join(', '),
  'Pros and cons': (c) =>
    [
      'Pros',
      `- Clear benefits for ${key(c, 0)}`,
      `- Saves time on ${key(c, 1)}`,
      `- Easy to start small`,
      '',
      'Cons',
      `- Takes effort to set up ${key(c, 2)}`,
      `- Results depend on consistency`,
      `- May not suit every situation`,
    ].join('\n'),
  'Google advertisement': (c) =>
    [
      `Headline 1: ${shorten(titleCase(key(c, 0)), 30)}`,
      `Headline 2: ${shorten(`Better ${titleCase(key(c, 1))}`, 30)}`,
      `Headline 3: ${shorten('Try It Free Today', 30)}`,
      `Description 1: ${shorten(`${capitalize(shorten(c.topic, 60))}. Simple, fast and reliable.`, 90)}`,
      `Description 2: ${shorten(`Save time on ${key(c, 0)} and ${key(c, 1)}. Get started in minutes.`, 90)}`,
    ].join('\n'),
  'Facebook advertisement': (c) =>
    [
      `Primary text: ${capitalize(shorten(c.topic, 120))}. Say goodbye to wasted time on ${key(c, 0)}. Thousands already made the switch.`,
      `Headline: ${shorten(`${titleCase(key(c, 0))} Made Simple`, 40)}`,
      'Call to action: Learn more',
    ].join('\n'),
  'Job description': (c) =>
    [
      `Job title: ${titleCase(shorten(c.topic, 60))}`,
      '',
      'About the role',
      `We are looking for someone to own ${key(c, 0)} and help us grow ${key(c, 1)}.`,
      '',
      'Responsibilities',
      `- Lead day-to-day work on ${key(c, 0)}`,
      `- Improve how we handle ${key(c, 1)}`,
      `- Work closely with the team on ${key(c, 2)}`,
      '',
      'Requirements',
      `- Experience with ${key(c, 0)}`,
      '- Clear written and spoken communication',
      '- A habit of finishing what you start',
      '',
      'What we offer',
      '- Fair pay and flexible hours',
      '- A friendly, supportive team',
    ].join('\n'),
  Review: (c) =>
    [
      `What is good: ${paragraph(c, c.topic)}`,
      '',
      `What could be better: ${capitalize(key(c, 1))} takes some getting used to, and ${key(c, 2)} could be clearer.`,
      '',
      `Verdict: worth it for anyone who cares about ${key(c, 0)}. Rating: 4/5.`,
    ].join('\n'),
  'Feature section': (c) =>
    [
      `Features built for ${shorten(c.topic, 70)}`,
      '',
      `${capitalize(key(c, 0))}: get started in minutes, with nothing to install.`,
      `${capitalize(key(c, 1))}: everything in one place, always up to date.`,
      `${capitalize(key(c, 2))}: clear reports that show what works.`,
    ].join('\n'),
};

/** The writer of a named template; custom and unknown templates get free prose. */
export function draftWriter(templateName: string): DraftWriter {
  return WRITERS[templateName] ?? prose(2);
}

/** The template names that have a writer of their own (all 52 named templates). */
export const DRAFT_KINDS: readonly string[] = Object.keys(WRITERS);
