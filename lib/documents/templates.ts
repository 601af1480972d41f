import type { Template } from '../ports/document-service.js';

/** A user-defined template (ids 53 to 72). */
export interface CustomTemplateOptions {
  /** The name shown in lists. */
  name: string;
  /** What the generator is told to write. */
  instruction: string;
}

/** The lowest and highest template ids (docs/contract.md §4). */
export const TEMPLATE_ID_MIN = 1;
/** The highest template id; 53 to 72 are user-defined. */
export const TEMPLATE_ID_MAX = 72;

/**
 * The 52 named templates of the specification, in its order (index + 1 is the id), each with the
 * instruction the generator receives as its system message.
 */
export const NAMED_TEMPLATES: readonly { name: string; instruction: string }[] = [
  { name: 'Freestyle', instruction: 'Write the text the user asks for, in clear and natural prose.' },
  {
    name: 'About us',
    instruction:
      'Write an "About us" page of two or three paragraphs: who the company is, what it does, for whom, and why it can be trusted.',
  },
  {
    name: 'Advertisement',
    instruction:
      'Write a short advertisement: a catchy headline, two or three persuasive sentences on the main benefit, and a call to action.',
  },
  {
    name: 'Article',
    instruction: 'Write an article with a title, an introduction, several sections with subheadings, and a conclusion.',
  },
  {
    name: 'Blog intro',
    instruction:
      'Write the introduction of a blog post: one or two paragraphs that hook the reader and say what the post covers.',
  },
  {
    name: 'Blog outline',
    instruction:
      'Write the outline of a blog post as a numbered list of sections, each with two or three bullet points. Write an outline, not the post.',
  },
  {
    name: 'Blog outro',
    instruction: 'Write the closing paragraph of a blog post: sum up the main points and end with a call to action.',
  },
  { name: 'Blog paragraph', instruction: 'Write one well-structured blog paragraph on the topic.' },
  {
    name: 'Blog post',
    instruction:
      'Write a complete blog post with a title, an introduction, three or more sections with subheadings, and a conclusion.',
  },
  { name: 'Blog section', instruction: 'Write one section of a blog post: a subheading followed by two or three paragraphs.' },
  {
    name: 'Blog talking points',
    instruction: 'Write a bulleted list of five to eight talking points for a blog post on the topic.',
  },
  { name: 'Blog title', instruction: 'Write five alternative blog post titles, one per line, each under 70 characters.' },
  { name: 'Call to action', instruction: 'Write three short calls to action, one per line, each under 60 characters.' },
  { name: 'Content rewrite', instruction: 'Rewrite the text the user gives in different words, keeping its meaning and length.' },
  { name: 'Content summary', instruction: 'Summarize the text the user gives in a few sentences, keeping only the key points.' },
  {
    name: 'FAQ',
    instruction:
      'Write a FAQ of five questions and their answers, each question on a line starting with "Q:" and each answer on a line starting with "A:".',
  },
  {
    name: 'Hashtags',
    instruction: 'Write ten relevant hashtags on one line, each starting with #, with no spaces inside a hashtag.',
  },
  { name: 'Headline', instruction: 'Write five alternative headlines, one per line, each under 80 characters.' },
  {
    name: 'How it works',
    instruction: 'Write a "How it works" section as three to five numbered steps, each with a short title and one sentence.',
  },
  {
    name: 'Meta description',
    instruction: 'Write one meta description for a web page, about 155 characters and never more than 160, with no quotes.',
  },
  { name: 'Meta keywords', instruction: 'Write ten SEO keywords and key phrases as one comma-separated line, in lower case.' },
  {
    name: 'Mission statement',
    instruction: 'Write a mission statement of one to three sentences: what the organization does, for whom, and why.',
  },
  {
    name: 'Newsletter',
    instruction: 'Write a newsletter email with a subject line, a greeting, two or three short sections, and a sign-off.',
  },
  {
    name: 'Pain-Agitate-Solution',
    instruction:
      'Write copy with the Pain-Agitate-Solution formula, in three parts labelled "Pain:", "Agitate:" and "Solution:".',
  },
  { name: 'Paragraph', instruction: 'Write one well-structured paragraph on the topic.' },
  {
    name: 'Press release',
    instruction:
      'Write a press release: "FOR IMMEDIATE RELEASE", a headline, a dateline, three paragraphs with a quote, an "About" paragraph, and "###" at the end.',
  },
  {
    name: 'Social post',
    instruction:
      'Write a social media post of two to four short sentences that invites engagement, with two or three hashtags at the end.',
  },
  {
    name: 'Social post caption',
    instruction: 'Write a short caption for a social media image, one or two sentences, with one or two emojis at most.',
  },
  {
    name: 'Startup ideas',
    instruction: 'Write five startup ideas as a numbered list, each with a name and a one-sentence pitch.',
  },
  { name: 'Startup names', instruction: 'Write ten startup names, one per line, short, memorable and easy to spell.' },
  {
    name: 'Subheadline',
    instruction: 'Write three alternative subheadlines, one per line, each one sentence that supports a headline.',
  },
  {
    name: 'Testimonial',
    instruction:
      'Write a customer testimonial of two to four sentences in the first person, followed by a line with the customer name and role.',
  },
  { name: 'Tweet', instruction: 'Write one tweet of at most 280 characters, including any hashtags.' },
  {
    name: 'Twitter thread',
    instruction: 'Write a Twitter thread of four to six tweets, each numbered like "1/" and each at most 280 characters.',
  },
  {
    name: 'Value proposition',
    instruction: 'Write a value proposition: one headline sentence and three bullet points of benefits.',
  },
  {
    name: 'Video description',
    instruction:
      'Write a video description: a first line that hooks, a short summary paragraph, a list of what viewers will learn, and a call to subscribe.',
  },
  {
    name: 'Video script',
    instruction: 'Write a short video script in scenes, each with what is shown and what is said, from hook to call to action.',
  },
  { name: 'Video tags', instruction: 'Write fifteen video tags as one comma-separated line.' },
  { name: 'Video title', instruction: 'Write five alternative video titles, one per line, each under 70 characters.' },
  {
    name: 'Vision statement',
    instruction: 'Write a vision statement of one or two sentences describing the future the organization works toward.',
  },
  {
    name: 'Product sheet',
    instruction:
      'Write a product sheet: the product name, a one-paragraph overview, a list of key features, and a list of specifications.',
  },
  {
    name: 'Welcome email',
    instruction:
      'Write a welcome email with a subject line, a warm greeting, what to do first, where to get help, and a sign-off.',
  },
  { name: 'Push notification', instruction: 'Write three push notifications, one per line, each under 100 characters.' },
  {
    name: 'Blog listicle',
    instruction:
      'Write a listicle blog post: a title, a short introduction, and a numbered list of seven items each with one or two sentences.',
  },
  {
    name: 'Content grammar',
    instruction:
      'Correct the grammar, spelling and punctuation of the text the user gives; change nothing else and write only the corrected text.',
  },
  { name: 'Blog tags', instruction: 'Write eight blog tags as one comma-separated line.' },
  {
    name: 'Pros and cons',
    instruction:
      'Write a list of pros and a list of cons, under the headings "Pros" and "Cons", with three to five bullet points each.',
  },
  {
    name: 'Google advertisement',
    instruction:
      'Write a Google search ad: three headlines of at most 30 characters and two descriptions of at most 90 characters, each labelled.',
  },
  {
    name: 'Facebook advertisement',
    instruction:
      'Write a Facebook ad: primary text of two or three sentences, a headline under 40 characters, and a call-to-action button label.',
  },
  {
    name: 'Job description',
    instruction:
      'Write a job description with the sections "About the role", "Responsibilities", "Requirements" and "What we offer", using bullet points.',
  },
  {
    name: 'Review',
    instruction:
      'Write a balanced review of two or three paragraphs with what is good, what could be better, and a verdict with a rating out of 5.',
  },
  {
    name: 'Feature section',
    instruction:
      'Write a feature section for a website: a section title and three features, each with a short title and one sentence.',
  },
];

const GENERIC_CUSTOM_INSTRUCTION = 'Write the text the user asks for, in clear and natural prose.';

/**
 * Every template by id, 1 to 72: the named ones, then the user-defined ones from `customTemplates`
 * (an id with no definition is still a template, named `Custom template N`).
 */
export function buildTemplates(customTemplates: Record<number, CustomTemplateOptions>): Map<number, Template> {
  const templates = new Map<number, Template>();
  NAMED_TEMPLATES.forEach((template, index) => templates.set(index + 1, { id: index + 1, custom: false, ...template }));
  for (let id = NAMED_TEMPLATES.length + 1; id <= TEMPLATE_ID_MAX; id += 1) {
    const defined = customTemplates[id];
    templates.set(id, {
      id,
      custom: true,
      name: defined?.name ?? `Custom template ${id}`,
      instruction: defined?.instruction ?? GENERIC_CUSTOM_INSTRUCTION,
    });
  }
  return templates;
}
