/** The ids of the product's WARNING and SEVERE log lines and what each means (docs/guide/messages.md). */
package dev.projections.messages;
