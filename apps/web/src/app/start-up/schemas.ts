/** The shared schemas the app starts with: making them is the largest piece of start-up work (see main.tsx). */
export { loginSchema, registerFormSchema, responseSchemas } from "@daysync/shared";
