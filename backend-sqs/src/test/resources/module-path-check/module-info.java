/** A program of its own module that uses shove's SQS backend: compiled and run on the module path by SqsModulePathIT. */
module dev.shove.sqs.check {
    requires dev.shove.sqs;
}
