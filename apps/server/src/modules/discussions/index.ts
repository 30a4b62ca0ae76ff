/** The discussions module as others see it: who is a member, a discussion's rows and its life. */
export { discussionMembership, noSuchDiscussion } from "./discussion-access.ts";
export type { DiscussionMessagesRepository, MessageWithAuthor } from "./discussion-messages.repository.ts";
export type { DiscussionsRepository } from "./discussions.repository.ts";
export type { DiscussionsService } from "./discussions.service.ts";
